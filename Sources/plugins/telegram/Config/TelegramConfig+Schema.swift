import MessengerKit
import PiRelaySDK

extension TelegramConfig {
    /// The `telegram:` section as the hello declares it: pi-relayd checks it against this before
    /// the welcome, so mistakes are reported with their line and column.
    static let schema = ConfigSchema(keys: [
        .botToken(variable: BundledSecret.telegramToken, source: "@BotFather (/newbot, or /token for an existing bot)"),
        ConfigKey(
            "allowedUsers", .list(.id(userID), what: "a list of Telegram user ids"), help: "Telegram user ids the bot obeys"),
        ConfigKey(
            "chats",
            .entries(
                .boundChats(what: "a list of chats like {id: -1001234567890, cwd: /path, name: api}", id: chatID, keyHint: "the Telegram chat id")),
            help: "groups bound to a working directory"),
        ConfigKey("requireMention", .bool, help: "in groups, only commands, mentions and replies to the bot count"),
        ConfigKey.sharedRooms(chatID, what: "a list of Telegram chat ids"),
        ConfigKey.liveInterval,
        ConfigKey("apiBase", .url(ConfigURL()), help: "the Bot API's address"),
        ConfigKey("proxy", .url(ConfigURL(what: "a proxy URL", schemes: [], emptyMeansNone: true)), help: "a proxy for Telegram traffic"),
        ConfigKey("pollTimeoutSeconds", .integer(1...50), help: "how long one getUpdates waits for news"),
    ])

    static let userID = ConfigID(
        what: "a Telegram user id", hint: "digits only (message @userinfobot to learn yours)", form: .digits(maxDigits: 16, signed: false))
    static let chatID = ConfigID(
        what: "a Telegram chat id", hint: "digits, negative for a group (-1001234567890)", form: .digits(maxDigits: 16, signed: true))

    /// What `pi-relayd setup telegram` and `doctor` say.
    static let setup = MessengerSetup(title: "Telegram", linkLabel: "Open the bot:")
}
