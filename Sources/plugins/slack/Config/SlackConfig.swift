import FoundationEssentials
import PiRelayHTTP
import PiRelaySDK

/// The `slack:` section of config.yaml plus the environment, checked once at start.
struct SlackConfig: Sendable {
    static let defaultAPIBase = "https://slack.com/api"

    var botToken: SlackToken
    var botTokenEnv: String
    var appToken: SlackToken
    var appTokenEnv: String
    /// Empty means everyone is refused.
    var allowedUsers: Set<String>
    var channels: [ChannelSetting]
    /// In channels, a message must mention the bot (DMs and `/pi` always count).
    var requireMention: Bool
    /// Channels several machines' bots share: every message there is heard, mention or not.
    var sharedRooms = SharedRooms.none
    var apiBase: String
    var proxy: ProxySetting

    /// Throws `PluginExit.notConfigured` (exit 78) with a message that says what to fix.
    static func load(_ config: JSONValue, environment: [String: String]) throws -> SlackConfig {
        var config = config
        if config.isNull { config = [:] }
        guard config.objectValue != nil else { throw problem("the slack section of config.yaml must be a mapping") }
        let botTokenEnv = try string(config, "botTokenEnv") ?? "SLACK_BOT_TOKEN"
        let appTokenEnv = try string(config, "appTokenEnv") ?? "SLACK_APP_TOKEN"
        let bot = (environment[botTokenEnv] ?? "").trimmed()
        let app = (environment[appTokenEnv] ?? "").trimmed()
        guard !bot.isEmpty else {
            throw problem(
                "no Slack bot token: set \(botTokenEnv) to the xoxb-… token from OAuth & Permissions (or slack.botTokenEnv), or run pi-relayd setup slack"
            )
        }
        guard SlackToken.isWellFormed(bot, prefix: "xoxb-") else {
            throw problem("\(botTokenEnv) does not look like a Slack bot token (xoxb-…, from OAuth & Permissions)")
        }
        guard !app.isEmpty else {
            throw problem(
                "no Slack app-level token: set \(appTokenEnv) to an xapp-… token with connections:write (Basic Information → App-Level Tokens), or run pi-relayd setup slack"
            )
        }
        guard SlackToken.isWellFormed(app, prefix: "xapp-") else {
            throw problem("\(appTokenEnv) does not look like a Slack app-level token (xapp-…, Basic Information → App-Level Tokens)")
        }
        var allowed = Set(try ids(config, "allowedUsers"))
        for part in (environment["SLACK_ALLOWED_USERS"] ?? "").split(separator: ",") {
            let id = part.trimmingInlineSpace()
            guard !id.isEmpty else { continue }
            guard isUserID(id) else { throw problem("SLACK_ALLOWED_USERS: \"\(id)\" is not a Slack user id (U… or W…)") }
            allowed.insert(id)
        }
        var channels: [ChannelSetting] = []
        if let list = config["channels"], !list.isNull {
            guard let items = list.arrayValue else { throw problem("slack.channels must be a list of {id, cwd, name}") }
            for (index, item) in items.enumerated() {
                let id = item["id"]?.stringValue ?? ""
                guard isChannelID(id) else {
                    throw problem("slack.channels[\(index)].id \"\(id)\" is not a Slack channel id (C… or G…, from the channel's details)")
                }
                channels.append(ChannelSetting(id: id, cwd: item["cwd"]?.stringValue, name: item["name"]?.stringValue))
            }
        }
        let requireMention: Bool
        switch config["requireMention"] {
        case nil, .null?: requireMention = true
        case .bool(let value)?: requireMention = value
        default: throw problem("slack.requireMention must be true or false")
        }
        var apiBase = try string(config, "apiBase") ?? defaultAPIBase
        while apiBase.hasSuffix("/") { apiBase.removeLast() }
        guard apiBase.hasPrefix("https://") || apiBase.hasPrefix("http://") else {
            throw problem("slack.apiBase must be an http(s) URL such as \(defaultAPIBase)")
        }
        return SlackConfig(
            botToken: SlackToken(value: bot), botTokenEnv: botTokenEnv, appToken: SlackToken(value: app), appTokenEnv: appTokenEnv,
            allowedUsers: allowed, channels: channels, requireMention: requireMention, sharedRooms: SharedRooms(config["sharedRooms"]),
            apiBase: apiBase,
            proxy: ProxySetting.resolve(configured: try string(config, "proxy"), environment: environment))
    }

    /// `U…` or `W…` (an Enterprise Grid user); Slack says ids may grow, so no length check.
    static func isUserID(_ id: String) -> Bool {
        (id.hasPrefix("U") || id.hasPrefix("W")) && id.count >= 2 && id.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }

    /// A conversation: `C…` (public), `G…` (private) or `D…` (a DM).
    static func isChannelID(_ id: String) -> Bool {
        ["C", "G", "D"].contains(id.first.map(String.init) ?? "") && id.count >= 2
            && id.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }

    private static func string(_ config: JSONValue, _ key: String) throws -> String? {
        switch config[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw problem("slack.\(key) must be a string")
        }
    }

    private static func ids(_ config: JSONValue, _ key: String) throws -> [String] {
        guard let value = config[key], !value.isNull else { return [] }
        guard let items = value.arrayValue else { throw problem("slack.\(key) must be a list of user ids") }
        return try items.enumerated().map { index, item in
            let id = (item.stringValue ?? "").trimmingInlineSpace()
            guard isUserID(id) else {
                throw problem("slack.\(key)[\(index)] \"\(id)\" is not a Slack user id (U…; in Slack: your profile → ⋮ → Copy member ID)")
            }
            return id
        }
    }

    private static func problem(_ text: String) -> PluginExit { .notConfigured(text) }
}
