extension ConfigLoader {
    /// Plain-language notes on what still needs setting up. Only variable names appear, never
    /// their values.
    static func notConfigured(_ config: Config, knownPlugins: Set<String>,
                              environment: [String: String]) -> [String] {
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
            if discord.allowedUsers.isEmpty {
                notes.append("discord: no allowedUsers, so the bot answers nobody (add your Discord user id to discord.allowedUsers)")
            }
        }
        let pluginNames = knownPlugins.union(alwaysAcceptedPlugins)
        for name in config.plugins.disabled where !pluginNames.contains(name) {
            notes.append("plugins.disabled: there is no plugin called \(YAMLNode.quoted(name))")
        }
        return notes
    }
}
