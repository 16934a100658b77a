import FoundationEssentials
import MessengerKit
import PiRelayHTTP
import PiRelaySDK

/// The `discord:` section of config.yaml plus the environment, checked once at start.
struct DiscordConfig: MessengerConfig {
    static let defaultAPIBase = "https://discord.com/api/v10"

    var token: BotToken
    var tokenEnv: String
    var guilds: [String]
    var channels: [ChatSetting]
    /// `discord.dms`: false when another machine sharing the token answers DMs (`ignore`).
    var answersDMs: Bool
    /// Allowed users, mentions, shared rooms, the API's base and the proxy.
    var settings: MessengerSettings

    /// Throws `PluginExit.notConfigured` (exit 78) with a message that says what to fix.
    static func load(_ config: JSONValue, environment: [String: String]) throws -> DiscordConfig {
        let section = try MessengerSection(config, name: "discord")
        let missing = { (variable: String) in "no Discord bot token: set \(variable) (or discord.tokenEnv), or run pi-relayd setup discord" }
        var (raw, tokenEnv) = try section.secret("tokenEnv", default: BundledSecret.discordToken, environment: environment, missing: missing)
        if raw.hasPrefix("Bot ") { raw = String(raw.dropFirst(4)).trimmingInlineSpace() }
        guard !raw.isEmpty else { throw PluginExit.notConfigured(missing(tokenEnv)) }
        var allowed = Set(try ids(section, "allowedUsers"))
        allowed.formUnion(
            try MessengerSection.environmentIDs(
                "DISCORD_ALLOWED_USERS", environment, isID: isSnowflake, what: "a Discord user id (digits only)"))
        let guilds = try ids(section, "guilds")
        let channels = try section.chats("channels") { index, item in
            switch item {
            case .string(let text): return text
            case .number: return try exactID(item, "discord.channels[\(index)]")
            case .object(let object):
                guard let value = object["id"] else { throw section.problem("discord.channels[\(index)] has no id") }
                return try value.stringValue ?? exactID(value, "discord.channels[\(index)].id")
            default: throw section.problem("discord.channels[\(index)] must be {id, cwd, name}")
            }
        } check: { index, id in
            isSnowflake(id) ? nil : "discord.channels[\(index)].id \"\(id)\" is not a Discord channel id (digits only)"
        }
        let answersDMs: Bool
        switch try section.string("dms") {
        case nil, "answer"?: answersDMs = true
        case "ignore"?: answersDMs = false
        default: throw section.problem("discord.dms must be answer or ignore")
        }
        let settings = try section.settings(allowedUsers: allowed, defaultAPIBase: defaultAPIBase, environment: environment)
        if let scheme = settings.proxy.unsupportedGatewayScheme {
            let source = try section.string("proxy") == nil ? "HTTPS_PROXY" : "discord.proxy"
            throw section.problem(
                "\(source) is a \(scheme):// proxy, which the gateway cannot use: use an http://, socks5:// or "
                    + "socks5h:// proxy, or set discord.proxy to \"\" to connect directly")
        }
        return DiscordConfig(
            token: BotToken(value: raw), tokenEnv: tokenEnv, guilds: guilds, channels: channels, answersDMs: answersDMs, settings: settings)
    }

    static func isSnowflake(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 20 && id.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// A list of ids; YAML may have turned unquoted ids into numbers, which are taken as they are
    /// only when exact (snowflakes beyond 2^53 lose digits as numbers, so those must be quoted).
    private static func ids(_ section: MessengerSection, _ key: String) throws -> [String] {
        try section.list(key, of: "id strings").enumerated().map { index, item in
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

    private static func problem(_ text: String) -> PluginExit { MessengerSection.problem(text) }
}
