import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// `pi-relayd doctor`: active checks of everything a working bot needs, each passed or failed
/// with its fix. Read-only: it starts pi and each messenger plugin briefly (check-only), asks
/// the daemon if one runs, and changes nothing.
struct Doctor: Sendable {
    let home: Home
    let environment: [String: String]
    /// Less free space than this on the home's file system fails (sessions, logs and outboxes
    /// write there).
    let minimumFreeBytes: UInt64
    /// How long pi may take to answer `get_state` (10 s: a pi that takes longer to start makes
    /// every session start slow).
    let piTimeout: Duration

    /// Every check, in the order a newcomer would fix them.
    func run() async -> [DoctorCheck] {
        let (config, configCheck) = loadConfig()
        var checks = [configCheck]
        checks += await piChecks(config.config.pi)
        checks += await messengerChecks(config)
        checks += fileChecks()
        checks.append(diskCheck())
        checks += daemonChecks(setUp: messengersSetUp(config))
        checks.append(extensionCheck())
        return checks
    }

    /// The config as the daemon would load it; defaults (and a failed check) when it does not load.
    private func loadConfig() -> (LoadedConfig, DoctorCheck) {
        let dirs = PluginDiscovery.searchPath(home: home, environment: environment)
        let scan = PluginDiscovery(directories: dirs, disabled: []).scan()
        let known = Set(scan.found.map(\.name) + scan.refused.map(\.name) + scan.skipped)
        do {
            let loaded = try ConfigLoader.load(home: home.root, knownPlugins: known, environment: environment)
            let detail =
                loaded.warnings.isEmpty
                ? "loads cleanly" : "loads, with \(loaded.warnings.count) warning(s): \(loaded.warnings.joined(separator: "; "))"
            return (loaded, .pass("config", "config.yaml", detail))
        } catch {
            let fallback = LoadedConfig(config: Config(), warnings: [], notConfigured: [], dotenv: [:])
            return (fallback, .fail("config", "config.yaml", "\(error)", fix: "correct config.yaml at the line and column named (docs/CONFIG.md)"))
        }
    }

    /// The messengers with a section in config.yaml or a token: the ones the owner means to use.
    func messengersSetUp(_ loaded: LoadedConfig) -> Set<String> {
        let environment = childEnvironment(loaded)
        return Set(
            SetupMessenger.allCases.filter { kind in
                let section = loaded.config.pluginSections[kind.rawValue]
                let variable = section?[kind.tokens[0].configKey]?.stringValue ?? kind.defaultTokenEnv
                return section != nil || environment[variable].map { !$0.isEmpty } == true
            }.map(\.rawValue))
    }

    /// The environment the daemon's children get: ours, then .env's values where ours has none.
    func childEnvironment(_ loaded: LoadedConfig) -> [String: String] {
        environment.merging(loaded.dotenv) { ours, _ in ours }
    }
}
