import FoundationEssentials
import MessengerKit
import PiRelayHTTP
import PiRelaySDK

/// The `telegram:` section of config.yaml plus the environment, checked once at start.
struct TelegramConfig: MessengerConfig {
    static let defaultAPIBase = "https://api.telegram.org"

    var token: TelegramToken
    var tokenEnv: String
    var chats: [ChatSetting]
    /// Allowed users, mentions (in groups), shared groups, the API's base and the proxy.
    var settings: MessengerSettings
    /// How long one `getUpdates` waits for news; the HTTP timeout is set 15 s above it.
    var pollTimeoutSeconds: Int

    /// Throws `PluginExit.notConfigured` (exit 78) with a message that says what to fix.
    static func load(_ config: JSONValue, environment: [String: String]) throws -> TelegramConfig {
        let section = try MessengerSection(config, name: "telegram")
        let (raw, tokenEnv) = try section.secret("tokenEnv", default: BundledSecret.telegramToken, environment: environment) {
            "no Telegram bot token: set \($0) (or telegram.tokenEnv), or run pi-relayd setup telegram"
        }
        guard TelegramToken.isWellFormed(raw) else {
            throw section.problem("\(tokenEnv) does not look like a Telegram bot token (digits, a colon, then the secret, as BotFather gives it)")
        }
        var allowed = Set(try ids(section, "allowedUsers", positive: true))
        allowed.formUnion(
            try MessengerSection.environmentIDs(
                "TELEGRAM_ALLOWED_USERS", environment, isID: isUserID, what: "a Telegram user id (digits only)"))
        let chats = try section.chats("chats") { index, item in
            guard let value = item["id"] else { throw section.problem("telegram.chats[\(index)] has no id") }
            return value.stringValue ?? value.intValue.map(String.init) ?? ""
        } check: { index, id in
            isChatID(id) ? nil : "telegram.chats[\(index)].id \"\(id)\" is not a Telegram chat id (a group's id is negative)"
        }
        let settings = try section.settings(allowedUsers: allowed, defaultAPIBase: defaultAPIBase, environment: environment)
        let pollTimeout: Int
        switch section["pollTimeoutSeconds"] {
        case nil, .null?: pollTimeout = 25
        case let value?:
            guard let seconds = value.intValue, (1...50).contains(seconds) else {
                throw section.problem("telegram.pollTimeoutSeconds must be a whole number from 1 to 50")
            }
            pollTimeout = seconds
        }
        return TelegramConfig(token: TelegramToken(value: raw), tokenEnv: tokenEnv, chats: chats, settings: settings, pollTimeoutSeconds: pollTimeout)
    }

    static func isUserID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 16 && id.allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func isChatID(_ id: String) -> Bool {
        isUserID(id.hasPrefix("-") ? String(id.dropFirst()) : id)
    }

    /// Ids as strings; YAML reads unquoted ones as numbers, which are exact at Telegram's sizes.
    private static func ids(_ section: MessengerSection, _ key: String, positive: Bool) throws -> [String] {
        try section.list(key, of: "ids").enumerated().map { index, item in
            let id = (item.stringValue ?? item.intValue.map(String.init) ?? "").trimmingInlineSpace()
            guard positive ? isUserID(id) : isChatID(id) else {
                throw section.problem("telegram.\(key)[\(index)] \"\(id)\" is not a Telegram id (digits only; ask @userinfobot for yours)")
            }
            return id
        }
    }
}
