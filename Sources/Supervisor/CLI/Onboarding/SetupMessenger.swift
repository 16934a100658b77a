/// The messengers `pi-relayd setup` knows how to set up.
enum SetupMessenger: String, CaseIterable {
    case discord
    case telegram

    /// The service's name as people write it.
    var title: String { self == .discord ? "Discord" : "Telegram" }

    /// The variable the plugin reads its token from unless `tokenEnv` names another.
    var defaultTokenEnv: String { self == .discord ? "DISCORD_BOT_TOKEN" : "TELEGRAM_BOT_TOKEN" }

    /// Where the token comes from, for the prompt.
    var tokenSource: String {
        self == .discord
            ? "the Developer Portal (your app → Bot → Reset Token)" : "@BotFather (/newbot, or /token for an existing bot)"
    }

    /// The messenger named on the command line; a clear error for the others.
    static func named(_ name: String) throws -> SetupMessenger {
        if let known = SetupMessenger(rawValue: name.lowercased()) { return known }
        if name.lowercased() == "slack" {
            throw SetupError(
                description: "slack cannot be set up yet: its plugin has not landed. setup knows discord and telegram.")
        }
        throw SetupError(description: "unknown messenger \(name): setup knows discord and telegram")
    }
}

/// A setup step that failed; the message says what to do.
struct SetupError: Error, CustomStringConvertible {
    let description: String
}
