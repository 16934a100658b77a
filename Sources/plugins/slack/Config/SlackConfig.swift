import FoundationEssentials
import MessengerKit
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
    var channels: [ChatSetting]
    /// In channels, a message must mention the bot (DMs and `/pi` always count).
    var requireMention: Bool
    /// Channels several machines' bots share: every message there is heard, mention or not.
    var sharedRooms = SharedRooms.none
    var apiBase: String
    var proxy: ProxySetting

    /// Throws `PluginExit.notConfigured` (exit 78) with a message that says what to fix.
    static func load(_ config: JSONValue, environment: [String: String]) throws -> SlackConfig {
        let section = try MessengerSection(config, name: "slack")
        let botTokenEnv = try section.string("botTokenEnv") ?? "SLACK_BOT_TOKEN"
        let appTokenEnv = try section.string("appTokenEnv") ?? "SLACK_APP_TOKEN"
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
        var allowed = Set(try ids(section, "allowedUsers"))
        allowed.formUnion(
            try MessengerSection.environmentIDs("SLACK_ALLOWED_USERS", environment, isID: isUserID, what: "a Slack user id (U… or W…)"))
        let channels = try section.chats("channels") { _, item in
            item["id"]?.stringValue ?? ""
        } check: { index, id in
            isChannelID(id) ? nil : "slack.channels[\(index)].id \"\(id)\" is not a Slack channel id (C… or G…, from the channel's details)"
        }
        let requireMention = try section.bool("requireMention", default: true)
        let apiBase = try section.apiBase(default: defaultAPIBase)
        return SlackConfig(
            botToken: SlackToken(value: bot), botTokenEnv: botTokenEnv, appToken: SlackToken(value: app), appTokenEnv: appTokenEnv,
            allowedUsers: allowed, channels: channels, requireMention: requireMention, sharedRooms: section.sharedRooms,
            apiBase: apiBase, proxy: try section.proxy(environment: environment))
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

    private static func ids(_ section: MessengerSection, _ key: String) throws -> [String] {
        try section.list(key, of: "user ids").enumerated().map { index, item in
            let id = (item.stringValue ?? "").trimmingInlineSpace()
            guard isUserID(id) else {
                throw problem("slack.\(key)[\(index)] \"\(id)\" is not a Slack user id (U…; in Slack: your profile → ⋮ → Copy member ID)")
            }
            return id
        }
    }

    private static func problem(_ text: String) -> PluginExit { MessengerSection.problem(text) }
}
