import MessengerKit
import PiRelaySDK

extension DiscordConfig {
    /// The `discord:` section as the hello declares it: pi-relayd checks it against this before
    /// the welcome, so mistakes are reported with their line and column.
    static let schema = ConfigSchema(keys: [
        .botToken(variable: BundledSecret.discordToken, source: "the Developer Portal (your app → Bot → Reset Token)"),
        ConfigKey("allowedUsers", .list(.id(id("user")), what: "a list of Discord user ids"), help: "Discord user ids the bot obeys"),
        ConfigKey(
            "guilds", .list(.id(id("server")), what: "a list of Discord server ids"),
            help: "servers the bot works in; empty means any server it was invited to"),
        ConfigKey(
            "channels",
            .entries(
                .boundChats(
                    what: "a list of channels like {id: \"123\", cwd: /path, name: api}", id: id("channel"), keyHint: "the Discord channel id",
                    uniqueNoun: "channel")),
            help: "Discord channels bound to a working directory"),
        ConfigKey("requireMention", .bool, help: "in server channels, only messages that @mention the bot count"),
        ConfigKey.sharedRooms(id("channel"), what: "a list of Discord channel ids"),
        ConfigKey.liveInterval,
        ConfigKey(
            "dms", .choice(["answer", "ignore"]),
            help: "answer: this machine answers DMs to the bot; ignore: another machine sharing the token does"),
        ConfigKey("apiBase", .url(ConfigURL()), help: "the REST API's address"),
        // Both of the plugin's paths must speak it: libcurl (REST) and the gateway's WebSocket
        // client, which does HTTP CONNECT in plain text and SOCKS5 only.
        ConfigKey(
            "proxy",
            .url(
                ConfigURL(
                    what: "a proxy URL", schemes: ["http://", "socks5://", "socks5h://"], emptyMeansNone: true,
                    note: "the gateway cannot use https:// or socks4 proxies")),
            help: "a proxy for Discord traffic; \"\" connects directly whatever HTTPS_PROXY says"),
    ])

    /// A Discord id (a "snowflake"): digits only, 64 bits.
    static func id(_ what: String) -> ConfigID {
        ConfigID(
            what: "a Discord \(what) id", hint: "digits only (in Discord, turn on Developer Mode and use Copy ID)",
            form: .digits(maxDigits: 20, signed: false))
    }

    /// What `pi-relayd setup discord` and `doctor` say.
    static let setup = MessengerSetup(title: "Discord", linkLabel: "Invite the bot to your server:")
}
