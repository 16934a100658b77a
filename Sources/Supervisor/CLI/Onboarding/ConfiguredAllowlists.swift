import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Supervisor
import SupervisorIO
#endif

/// The users config.yaml and the environment allow (`allowedUsers`, `<MESSENGER>_ALLOWED_USERS`),
/// read as the daemon reads them, for the `users` commands run with no daemon.
struct ConfiguredAllowlists {
    /// Every messenger with a section or an installed plugin: an allowlist may come from its
    /// variable alone (DISCORD_ALLOWED_USERS).
    let messengers: Set<String>
    private let sections: [String: JSONValue]
    private let environment: [String: String]

    static func load(home: Home) throws -> ConfiguredAllowlists {
        let environment = ProcessInfo.processInfo.environment
        let installed = PluginDiscovery(directories: PluginDiscovery.searchPath(home: home, environment: environment), disabled: []).scan()
        let names = Set(installed.found.map(\.name))
        // The installed plugins' names make their sections known, not unknown keys.
        let loaded = try ConfigLoader.load(home: home.root, knownPlugins: names, environment: environment)
        return ConfiguredAllowlists(
            messengers: names.union(loaded.config.pluginSections.keys), sections: loaded.config.pluginSections,
            environment: environment.merging(loaded.dotenv) { current, _ in current })
    }

    func users(_ messenger: String) -> Set<String> {
        Allowlist(section: sections[messenger], messenger: messenger, environment: environment).users
    }
}
