/// `discord:` — the bundled Discord plugin's section. The plugin reads it from its `welcome`; the
/// supervisor checks it too, so mistakes are reported with their line and column at start-up and
/// the daemon can say what is missing.
struct DiscordSettings: Sendable, Equatable {
    /// One entry of `discord.channels`: a Discord channel bound to a working directory.
    struct Channel: Sendable, Equatable {
        var id: String
        /// New sessions started from this channel run here.
        var cwd: String?
        /// A short name for the channel in logs and `pi-relayd status`.
        var name: String?
    }

    /// `discord.tokenEnv`: the environment variable (or .env entry) holding the bot token. The
    /// token itself never appears in config.yaml.
    var tokenEnv = "DISCORD_BOT_TOKEN"
    /// `discord.allowedUsers`: Discord user ids the bot obeys; nobody else gets an answer.
    var allowedUsers: [String] = []
    /// `discord.guilds`: servers the bot works in; empty means any server it was invited to.
    var guilds: [String] = []
    var channels: [Channel] = []
    /// `discord.requireMention`: in server channels, only messages that @mention the bot count.
    var requireMention = true
    var apiBase = "https://discord.com/api/v10"
    /// `discord.proxy`: an http://, https://, socks5:// or socks5h:// proxy URL for Discord traffic.
    var proxy: String?
}
