import FoundationEssentials
import PiRelayHTTP
import PiRelaySDK

/// The `discord:` section of config.yaml plus the environment, checked once at start.
struct DiscordConfig: Sendable {
    static let defaultAPIBase = "https://discord.com/api/v10"

    var token: BotToken
    var tokenEnv: String
    /// Empty means everyone is refused.
    var allowedUsers: Set<String>
    var guilds: [String]
    var channels: [ChannelSetting]
    var requireMention: Bool
    /// Channels several machines' bots share: every message there is heard, mention or not.
    var sharedRooms = SharedRooms.none
    /// `discord.dms`: false when another machine sharing the token answers DMs (`ignore`).
    var answersDMs: Bool
    var apiBase: String
    var proxy: ProxySetting

    /// Throws `PluginExit.notConfigured` (exit 78) with a message that says what to fix.
    static func load(_ config: JSONValue, environment: [String: String]) throws -> DiscordConfig {
        var config = config
        if config.isNull { config = [:] }
        guard config.objectValue != nil else { throw problem("the discord section of config.yaml must be a mapping") }
        let tokenEnv = try string(config, "tokenEnv") ?? "DISCORD_BOT_TOKEN"
        var raw = (environment[tokenEnv] ?? "").trimmed()
        if raw.hasPrefix("Bot ") { raw = String(raw.dropFirst(4)).trimmingInlineSpace() }
        guard !raw.isEmpty else {
            throw PluginExit.notConfigured("no Discord bot token: set \(tokenEnv) (or discord.tokenEnv), or run pi-relayd setup discord")
        }

        var allowed = Set(try ids(config, "allowedUsers"))
        for part in (environment["DISCORD_ALLOWED_USERS"] ?? "").split(separator: ",") {
            let id = part.trimmingInlineSpace()
            guard !id.isEmpty else { continue }
            guard isSnowflake(id) else { throw problem("DISCORD_ALLOWED_USERS: \"\(id)\" is not a Discord user id (digits only)") }
            allowed.insert(id)
        }
        let guilds = try ids(config, "guilds")
        var channels: [ChannelSetting] = []
        if let list = config["channels"], !list.isNull {
            guard let items = list.arrayValue else { throw problem("discord.channels must be a list of {id, cwd, name}") }
            for (index, item) in items.enumerated() {
                let id: String
                switch item {
                case .string(let text): id = text
                case .number: id = try exactID(item, "discord.channels[\(index)]")
                case .object(let object):
                    guard let value = object["id"] else { throw problem("discord.channels[\(index)] has no id") }
                    id = try value.stringValue ?? exactID(value, "discord.channels[\(index)].id")
                default: throw problem("discord.channels[\(index)] must be {id, cwd, name}")
                }
                guard isSnowflake(id) else { throw problem("discord.channels[\(index)].id \"\(id)\" is not a Discord channel id (digits only)") }
                channels.append(ChannelSetting(id: id, cwd: item["cwd"]?.stringValue, name: item["name"]?.stringValue))
            }
        }
        let requireMention: Bool
        switch config["requireMention"] {
        case nil, .null?: requireMention = true
        case .bool(let value)?: requireMention = value
        default: throw problem("discord.requireMention must be true or false")
        }
        let answersDMs: Bool
        switch try string(config, "dms") {
        case nil, "answer"?: answersDMs = true
        case "ignore"?: answersDMs = false
        default: throw problem("discord.dms must be answer or ignore")
        }
        var apiBase = try string(config, "apiBase") ?? defaultAPIBase
        while apiBase.hasSuffix("/") { apiBase.removeLast() }
        guard apiBase.hasPrefix("https://") || apiBase.hasPrefix("http://") else {
            throw problem("discord.apiBase must be an http(s) URL such as \(defaultAPIBase)")
        }
        let configuredProxy = try string(config, "proxy")
        let proxy = ProxySetting.resolve(configured: configuredProxy, environment: environment)
        if let scheme = proxy.unsupportedGatewayScheme {
            let source = configuredProxy == nil ? "HTTPS_PROXY" : "discord.proxy"
            throw problem(
                "\(source) is a \(scheme):// proxy, which the gateway cannot use: use an http://, socks5:// or "
                    + "socks5h:// proxy, or set discord.proxy to \"\" to connect directly")
        }
        return DiscordConfig(
            token: BotToken(value: raw), tokenEnv: tokenEnv, allowedUsers: allowed, guilds: guilds,
            channels: channels, requireMention: requireMention, sharedRooms: SharedRooms(config["sharedRooms"]), answersDMs: answersDMs,
            apiBase: apiBase, proxy: proxy)
    }

    static func isSnowflake(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 20 && id.allSatisfy { $0.isASCII && $0.isNumber }
    }

    private static func string(_ config: JSONValue, _ key: String) throws -> String? {
        switch config[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw problem("discord.\(key) must be a string")
        }
    }

    /// A list of ids; YAML may have turned unquoted ids into numbers, which are taken as they are
    /// only when exact (snowflakes beyond 2^53 lose digits as numbers, so those must be quoted).
    private static func ids(_ config: JSONValue, _ key: String) throws -> [String] {
        guard let value = config[key], !value.isNull else { return [] }
        guard let items = value.arrayValue else { throw problem("discord.\(key) must be a list of id strings") }
        return try items.enumerated().map { index, item in
            let id: String
            switch item {
            case .string(let text): id = text.trimmingInlineSpace()
            case .number: id = try exactID(item, "discord.\(key)[\(index)]")
            default: id = ""
            }
            guard isSnowflake(id) else { throw problem("discord.\(key)[\(index)] \"\(id)\" is not a Discord id (digits only)") }
            return id
        }
    }

    /// An id YAML read as a number: real snowflakes exceed 2^53 and lose digits that way.
    private static func exactID(_ value: JSONValue, _ name: String) throws -> String {
        guard let number = value.doubleValue, number >= 0, number < 9_007_199_254_740_992, let integer = value.intValue else {
            throw problem("\(name) is a number too large to be exact: put the id in quotes in config.yaml")
        }
        return String(integer)
    }

    private static func problem(_ text: String) -> PluginExit { .notConfigured(text) }
}
