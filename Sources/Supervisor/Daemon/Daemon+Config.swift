import FoundationEssentials

extension Daemon {
    /// config.yaml and .env as a starting daemon reads them: the installed plugins (and any
    /// linked in) make their sections known. `restart` reads them the same way, to refuse a
    /// config that would not start before it stops the daemon that runs.
    package static func loadConfig(home: Home, linked: [String] = [], environment: [String: String]) throws(ConfigError) -> LoadedConfig {
        let preliminary = PluginDiscovery(directories: pluginDirectories(home: home, linked: !linked.isEmpty, environment: environment), disabled: [])
            .scan()
        let known = Set(preliminary.found.map(\.name) + preliminary.refused.map(\.name) + preliminary.skipped + linked)
        return try ConfigLoader.load(home: home.root, knownPlugins: known, environment: environment)
    }

    /// Where plugins are found: the search path, or only the home's folder beside plugins linked
    /// into this process (tests of the chat layer).
    package static func pluginDirectories(home: Home, linked: Bool, environment: [String: String]) -> [String] {
        linked ? [home.pluginsDir] : PluginDiscovery.searchPath(home: home, environment: environment)
    }
}
