/// A REST call that Discord refused or that never got an answer. Its text names the route
/// template, never the concrete path (interaction tokens live in paths) or a header.
struct DiscordAPIError: Error, Sendable, CustomStringConvertible {
    var endpoint: String
    /// The HTTP status; 0 when there was no response.
    var status: Int
    /// Discord's JSON error code (50013, 10008...), when the body had one.
    var code: Int?
    var message: String

    var description: String {
        if status == 0 { return "\(endpoint): \(message)" }
        return "\(endpoint) failed: HTTP \(status)" + (code.map { " code \($0)" } ?? "") + (message.isEmpty ? "" : ": \(message)")
    }

    /// Retrying will not help: the request itself is wrong or not allowed.
    /// Discord's code for a message that does not exist (deleted, or never was).
    static let unknownMessage = 10008

    /// Discord's code for too many edits of messages older than an hour in a channel (a 429 of
    /// its own, discord-api.md §6): no bucket of the route, and waiting does not make the message
    /// younger. Post a new message instead.
    static let oldMessageEdits = 30046
    /// An edit or delete in a thread someone closed (archived); a post there opens it again.
    static let archivedThread = 50083

    /// Discord's code for an interaction's webhook token that is wrong or spent: a 401 that says
    /// nothing of the bot's token.
    static let invalidWebhookToken = 50027

    /// The bot's token was refused (reset in the Developer Portal, say): discord-api.md §6, "stop
    /// using a token after 401".
    var refusesBotToken: Bool { status == 401 && code != Self.invalidWebhookToken }

    /// What the owner reads when the token was refused: what to fix, never the token.
    var tokenRejection: String {
        """
        Discord rejected the bot token (HTTP 401 on \(endpoint)): put a valid bot token in \
        DISCORD_BOT_TOKEN (or the variable named by discord.tokenEnv); if it leaked or is old, reset it in \
        the Developer Portal (Applications → your app → Bot → Reset Token)
        """
    }

    /// Not a refused bot token: what it refuses is kept for the token that replaces it
    /// (`TokenRefusal`), not dropped.
    var isPermanent: Bool { (400..<500).contains(status) && status != 429 && !refusesBotToken }
}
