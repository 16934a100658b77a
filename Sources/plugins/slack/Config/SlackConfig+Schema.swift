import PiRelaySDK

extension SlackConfig {
    /// The `slack:` section as the hello declares it: pi-relayd checks it against this before the
    /// welcome, so mistakes are reported with their line and column.
    static let schema = ConfigSchema(keys: [
        ConfigKey(
            "botTokenEnv",
            .secret(
                ConfigSecret(
                    variable: BundledSecret.slackBotToken, name: "bot token", prefix: "xoxb-", source: "OAuth & Permissions (Bot User OAuth Token)")),
            help: "the variable holding the bot token (xoxb-…)"),
        ConfigKey(
            "appTokenEnv",
            .secret(
                ConfigSecret(
                    variable: BundledSecret.slackAppToken, name: "app-level token", prefix: "xapp-",
                    source: "Basic Information → App-Level Tokens (scope connections:write)")),
            help: "the variable holding the app-level token (xapp-…, Socket Mode)"),
        ConfigKey("allowedUsers", .list(.id(memberID), what: "a list of Slack member ids"), help: "Slack member ids the bot obeys"),
        ConfigKey(
            "channels",
            .entries(
                .boundChats(
                    what: "a list of channels like {id: C0123ABCD, cwd: /path, name: api}", id: channelID, keyHint: "the Slack channel id, C… or G…")),
            help: "channels bound to a working directory"),
        ConfigKey("requireMention", .bool, help: "in channels, only messages that mention the bot count"),
        ConfigKey.sharedRooms(channelID, what: "a list of Slack channel ids"),
        ConfigKey.liveInterval,
        ConfigKey("apiBase", .url(ConfigURL()), help: "the Web API's address"),
        ConfigKey("proxy", .url(ConfigURL(what: "a proxy URL", schemes: [], emptyMeansNone: true)), help: "a proxy for Slack traffic"),
    ])

    /// Slack says ids may grow, so no length is checked.
    static let memberID = ConfigID(
        what: "a Slack member id (U…)", hint: "in Slack, a profile's ⋮ menu → Copy member ID, or a channel's details", form: .prefixed(letters: "UW"))
    static let channelID = ConfigID(
        what: "a Slack channel id (C… or G…)", hint: "in Slack, a profile's ⋮ menu → Copy member ID, or a channel's details",
        form: .prefixed(letters: "CG"))

    /// What `pi-relayd setup slack` and `doctor` say; the manifest is docs/slack-app-manifest.yaml.
    static let setup = MessengerSetup(
        title: "Slack", linkLabel: "Open the bot's DM:", notes: ["The app manifest: pi-relayd setup slack --manifest"],
        instructions: SlackAppManifest.instructions, manifest: SlackAppManifest.yaml)
}
