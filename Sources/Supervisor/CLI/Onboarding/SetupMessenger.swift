/// The messengers `pi-relayd setup` knows how to set up.
enum SetupMessenger: String, CaseIterable {
    case discord
    case telegram
    case slack

    /// A token the messenger needs: the config key naming its variable, the variable's default,
    /// how the token starts (empty when it has no telling prefix) and where it comes from.
    struct Token {
        var configKey: String
        var defaultEnv: String
        var prefix: String
        var source: String
        var name: String
    }

    /// The service's name as people write it.
    var title: String {
        switch self {
        case .discord: "Discord"
        case .telegram: "Telegram"
        case .slack: "Slack"
        }
    }

    /// The tokens, in the order they are asked for; the first is the bot's.
    var tokens: [Token] {
        switch self {
        case .discord:
            [
                Token(
                    configKey: "tokenEnv", defaultEnv: "DISCORD_BOT_TOKEN", prefix: "", source: "the Developer Portal (your app → Bot → Reset Token)",
                    name: "bot token")
            ]
        case .telegram:
            [
                Token(
                    configKey: "tokenEnv", defaultEnv: "TELEGRAM_BOT_TOKEN", prefix: "",
                    source: "@BotFather (/newbot, or /token for an existing bot)", name: "bot token")
            ]
        case .slack:
            [
                Token(
                    configKey: "botTokenEnv", defaultEnv: "SLACK_BOT_TOKEN", prefix: "xoxb-", source: "OAuth & Permissions (Bot User OAuth Token)",
                    name: "bot token"),
                Token(
                    configKey: "appTokenEnv", defaultEnv: "SLACK_APP_TOKEN", prefix: "xapp-",
                    source: "Basic Information → App-Level Tokens (scope connections:write)", name: "app-level token"),
            ]
        }
    }

    /// The variable the plugin reads its bot token from unless configured otherwise.
    var defaultTokenEnv: String { tokens[0].defaultEnv }

    /// The messenger named on the command line; a clear error for the others.
    static func named(_ name: String) throws -> SetupMessenger {
        if let known = SetupMessenger(rawValue: name.lowercased()) { return known }
        throw SetupError(description: "unknown messenger \(name): setup knows discord, telegram and slack")
    }
}

/// A setup step that failed; the message says what to do.
struct SetupError: Error, CustomStringConvertible {
    let description: String
}
