/// `telegram:` — the bundled Telegram plugin's section. The plugin reads it from its `welcome`;
/// the supervisor checks it too, so mistakes are reported with their line and column at start-up.
struct TelegramSettings: Sendable, Equatable {
    /// One entry of `telegram.chats`: a group bound to a working directory.
    struct Chat: Sendable, Equatable {
        var id: String
        var cwd: String?
        var name: String?
    }

    /// `telegram.tokenEnv`: the environment variable (or .env entry) holding the bot token.
    var tokenEnv = "TELEGRAM_BOT_TOKEN"
    /// `telegram.allowedUsers`: Telegram user ids the bot obeys.
    var allowedUsers: [String] = []
    var chats: [Chat] = []
    /// `telegram.requireMention`: in groups, only commands, mentions and replies to the bot count.
    var requireMention = true
    var apiBase = "https://api.telegram.org"
    var proxy: String?
    var pollTimeoutSeconds = 25
}
