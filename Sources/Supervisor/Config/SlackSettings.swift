/// `slack:` — the bundled Slack plugin's section. The plugin reads it from its `welcome`; the
/// supervisor checks it too, so mistakes are reported with their line and column at start-up.
struct SlackSettings: Sendable, Equatable {
    /// One entry of `slack.channels`: a channel bound to a working directory.
    struct Channel: Sendable, Equatable {
        var id: String
        var cwd: String?
        var name: String?
    }

    /// `slack.botTokenEnv`: the variable holding the bot token (xoxb-…).
    var botTokenEnv = "SLACK_BOT_TOKEN"
    /// `slack.appTokenEnv`: the variable holding the app-level token (xapp-…, Socket Mode).
    var appTokenEnv = "SLACK_APP_TOKEN"
    /// `slack.allowedUsers`: Slack member ids the bot obeys.
    var allowedUsers: [String] = []
    var channels: [Channel] = []
    /// `slack.requireMention`: in channels, only messages that mention the bot count.
    var requireMention = true
    var apiBase = "https://slack.com/api"
    var proxy: String?
}
