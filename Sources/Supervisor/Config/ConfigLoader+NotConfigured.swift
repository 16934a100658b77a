import FoundationEssentials
import PiRelaySDK

extension ConfigLoader {
    /// Plain-language notes on what still needs setting up. Only variable names appear, never
    /// their values.
    static func notConfigured(
        _ config: Config, knownPlugins: Set<String>,
        environment: [String: String]
    ) -> [String] {
        var notes: [String] = []
        let discordWanted = knownPlugins.contains("discord") || config.pluginSections["discord"] != nil
        if discordWanted, !config.plugins.disabled.contains("discord") {
            let discord = config.discord
            if (environment[discord.tokenEnv] ?? "").isEmpty {
                if discord.tokenEnv == DiscordSettings().tokenEnv {
                    notes.append("discord: no bot token (set \(discord.tokenEnv) or discord.tokenEnv)")
                } else {
                    notes.append("discord: no bot token (set \(discord.tokenEnv), the variable named by discord.tokenEnv)")
                }
            }
            // The allowlist is `allowedUsers` plus DISCORD_ALLOWED_USERS (docs/PROTOCOL.md §6).
            let fromEnvironment = (environment["DISCORD_ALLOWED_USERS"] ?? "").split(separator: ",")
                .contains { !$0.trimmingInlineSpace().isEmpty }
            if discord.allowedUsers.isEmpty, !fromEnvironment {
                notes.append(
                    "discord: no allowed users configured, so only users paired with pi-relayd pair discord get answers (or add Discord user ids to discord.allowedUsers or DISCORD_ALLOWED_USERS)"
                )
            }
        }
        let pluginNames = knownPlugins.union(alwaysAcceptedPlugins)
        for name in config.plugins.disabled where !pluginNames.contains(name) {
            notes.append("plugins.disabled: there is no plugin called \(YAMLNode.quoted(name))")
        }
        return notes
    }
}
