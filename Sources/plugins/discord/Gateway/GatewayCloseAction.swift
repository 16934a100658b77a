/// What to do after the gateway connection ended, by close code (nil: the connection dropped
/// without a close frame).
enum GatewayCloseAction: Equatable, Sendable {
    /// Reconnect to the resume URL and resume the session.
    case resume
    /// The session is gone: reconnect and identify anew.
    case reidentify
    /// Reconnecting cannot help; stop with exit 78 and this explanation of what to fix.
    case fatal(String)

    static func after(closeCode code: Int?) -> GatewayCloseAction {
        switch code {
        case 4004:
            return .fatal(
                """
                Discord rejected the bot token (gateway close 4004 "Authentication failed"): put a valid bot \
                token in DISCORD_BOT_TOKEN (or the variable named by discord.tokenEnv); if it leaked or is \
                old, reset it in the Developer Portal (Applications → your app → Bot → Reset Token)
                """)
        case 4010:
            return .fatal("Discord refused the shard settings (gateway close 4010 \"Invalid shard\"); pi-relay-discord connects as shard [0, 1]")
        case 4011:
            return .fatal(
                "Discord requires sharding for this bot (gateway close 4011 \"Sharding required\"): it is in too many guilds for one connection, which pi-relay-discord does not support"
            )
        case 4012:
            return .fatal("Discord refused gateway API version 10 (gateway close 4012 \"Invalid API version\"); check discord.apiBase")
        case 4013:
            return .fatal(
                "Discord refused the gateway intents (gateway close 4013 \"Invalid intent(s)\"); pi-relay-discord asks for \(Intents.relay)")
        case 4014:
            return .fatal(
                """
                Discord refused the Message Content intent (gateway close 4014 "Disallowed intent(s)"): \
                enable it in the Developer Portal (Applications → your app → Bot → Privileged Gateway Intents → \
                MESSAGE CONTENT INTENT) and restart the plugin
                """)
        case 4007, 4009:
            // Invalid seq / session timed out: the session cannot be resumed.
            return .reidentify
        case 1000, 1001:
            // A normal close from Discord ends the session.
            return .reidentify
        default:
            return .resume
        }
    }
}
