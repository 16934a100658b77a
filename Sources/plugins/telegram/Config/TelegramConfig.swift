import FoundationEssentials
import PiRelayHTTP
import PiRelaySDK

/// The `telegram:` section of config.yaml plus the environment, checked once at start.
struct TelegramConfig: Sendable {
    static let defaultAPIBase = "https://api.telegram.org"

    var token: TelegramToken
    var tokenEnv: String
    /// Empty means everyone is refused.
    var allowedUsers: Set<String>
    var chats: [ChatSetting]
    /// In groups, a message must mention the bot or reply to one of its messages.
    var requireMention: Bool
    /// Groups several machines' bots share: every message there is heard, mention or not.
    var sharedRooms = SharedRooms.none
    var apiBase: String
    var proxy: ProxySetting
    /// How long one `getUpdates` waits for news; the HTTP timeout is set 15 s above it.
    var pollTimeoutSeconds: Int

    /// Throws `PluginExit.notConfigured` (exit 78) with a message that says what to fix.
    static func load(_ config: JSONValue, environment: [String: String]) throws -> TelegramConfig {
        var config = config
        if config.isNull { config = [:] }
        guard config.objectValue != nil else { throw problem("the telegram section of config.yaml must be a mapping") }
        let tokenEnv = try string(config, "tokenEnv") ?? "TELEGRAM_BOT_TOKEN"
        let raw = (environment[tokenEnv] ?? "").trimmed()
        guard !raw.isEmpty else {
            throw PluginExit.notConfigured("no Telegram bot token: set \(tokenEnv) (or telegram.tokenEnv), or run pi-relayd setup telegram")
        }
        guard TelegramToken.isWellFormed(raw) else {
            throw problem("\(tokenEnv) does not look like a Telegram bot token (digits, a colon, then the secret, as BotFather gives it)")
        }
        var allowed = Set(try ids(config, "allowedUsers", positive: true))
        for part in (environment["TELEGRAM_ALLOWED_USERS"] ?? "").split(separator: ",") {
            let id = part.trimmingInlineSpace()
            guard !id.isEmpty else { continue }
            guard isUserID(id) else { throw problem("TELEGRAM_ALLOWED_USERS: \"\(id)\" is not a Telegram user id (digits only)") }
            allowed.insert(id)
        }
        var chats: [ChatSetting] = []
        if let list = config["chats"], !list.isNull {
            guard let items = list.arrayValue else { throw problem("telegram.chats must be a list of {id, cwd, name}") }
            for (index, item) in items.enumerated() {
                guard let value = item["id"] else { throw problem("telegram.chats[\(index)] has no id") }
                let id = value.stringValue ?? value.intValue.map(String.init) ?? ""
                guard isChatID(id) else {
                    throw problem("telegram.chats[\(index)].id \"\(id)\" is not a Telegram chat id (a group's id is negative)")
                }
                chats.append(ChatSetting(id: id, cwd: item["cwd"]?.stringValue, name: item["name"]?.stringValue))
            }
        }
        let requireMention: Bool
        switch config["requireMention"] {
        case nil, .null?: requireMention = true
        case .bool(let value)?: requireMention = value
        default: throw problem("telegram.requireMention must be true or false")
        }
        var apiBase = try string(config, "apiBase") ?? defaultAPIBase
        while apiBase.hasSuffix("/") { apiBase.removeLast() }
        guard apiBase.hasPrefix("https://") || apiBase.hasPrefix("http://") else {
            throw problem("telegram.apiBase must be an http(s) URL such as \(defaultAPIBase)")
        }
        let pollTimeout: Int
        switch config["pollTimeoutSeconds"] {
        case nil, .null?: pollTimeout = 25
        case let value?:
            guard let seconds = value.intValue, (1...50).contains(seconds) else {
                throw problem("telegram.pollTimeoutSeconds must be a whole number from 1 to 50")
            }
            pollTimeout = seconds
        }
        return TelegramConfig(
            token: TelegramToken(value: raw), tokenEnv: tokenEnv, allowedUsers: allowed, chats: chats, requireMention: requireMention,
            sharedRooms: SharedRooms(config["sharedRooms"]),
            apiBase: apiBase, proxy: ProxySetting.resolve(configured: try string(config, "proxy"), environment: environment),
            pollTimeoutSeconds: pollTimeout)
    }

    static func isUserID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 16 && id.allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func isChatID(_ id: String) -> Bool {
        isUserID(id.hasPrefix("-") ? String(id.dropFirst()) : id)
    }

    private static func string(_ config: JSONValue, _ key: String) throws -> String? {
        switch config[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw problem("telegram.\(key) must be a string")
        }
    }

    /// Ids as strings; YAML reads unquoted ones as numbers, which are exact at Telegram's sizes.
    private static func ids(_ config: JSONValue, _ key: String, positive: Bool) throws -> [String] {
        guard let value = config[key], !value.isNull else { return [] }
        guard let items = value.arrayValue else { throw problem("telegram.\(key) must be a list of ids") }
        return try items.enumerated().map { index, item in
            let id = (item.stringValue ?? item.intValue.map(String.init) ?? "").trimmingInlineSpace()
            guard positive ? isUserID(id) : isChatID(id) else {
                throw problem("telegram.\(key)[\(index)] \"\(id)\" is not a Telegram id (digits only; ask @userinfobot for yours)")
            }
            return id
        }
    }

    private static func problem(_ text: String) -> PluginExit { .notConfigured(text) }
}
