import FoundationEssentials
import MessengerKit
import PiRelayHTTP
import PiRelaySDK

/// The `slack:` section of config.yaml plus the environment, checked once at start.
struct SlackConfig: MessengerConfig {
    static let defaultAPIBase = "https://slack.com/api"

    var botToken: SlackToken
    var botTokenEnv: String
    var appToken: SlackToken
    var appTokenEnv: String
    var channels: [ChatSetting]
    /// Allowed users, mentions (in channels; DMs and `/pi` always count), shared channels, the
    /// API's base and the proxy.
    var settings: MessengerSettings

    /// Throws `PluginExit.notConfigured` (exit 78) with a message that says what to fix.
    static func load(_ config: JSONValue, environment: [String: String]) throws -> SlackConfig {
        let section = try MessengerSection(config, name: "slack")
        let (bot, botTokenEnv) = try section.secret("botTokenEnv", default: BundledSecret.slackBotToken, environment: environment) {
            "no Slack bot token: set \($0) to the xoxb-… token from OAuth & Permissions (or slack.botTokenEnv), or run pi-relayd setup slack"
        }
        guard SlackToken.isWellFormed(bot, prefix: "xoxb-") else {
            throw problem("\(botTokenEnv) does not look like a Slack bot token (xoxb-…, from OAuth & Permissions)")
        }
        let (app, appTokenEnv) = try section.secret("appTokenEnv", default: BundledSecret.slackAppToken, environment: environment) {
            "no Slack app-level token: set \($0) to an xapp-… token with connections:write (Basic Information → App-Level Tokens), or run pi-relayd setup slack"
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
        return SlackConfig(
            botToken: SlackToken(value: bot), botTokenEnv: botTokenEnv, appToken: SlackToken(value: app), appTokenEnv: appTokenEnv,
            channels: channels, settings: try section.settings(allowedUsers: allowed, defaultAPIBase: defaultAPIBase, environment: environment))
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
