import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// `pi-relayd doctor`: active checks of everything a working bot needs, each passed or failed
/// with its fix. Read-only: it starts pi and each messenger plugin briefly (check-only), asks
/// the daemon if one runs, and changes nothing.
package struct Doctor: Sendable {
    package let home: Home
    package let environment: [String: String]
    /// Less free space than this on the home's file system fails (sessions, logs and outboxes
    /// write there).
    package let minimumFreeBytes: UInt64
    /// How long pi may take to answer `get_state` (10 s: a pi that takes longer to start makes
    /// every session start slow).
    package let piTimeout: Duration

    package init(home: Home, environment: [String: String], minimumFreeBytes: UInt64, piTimeout: Duration) {
        self.home = home
        self.environment = environment
        self.minimumFreeBytes = minimumFreeBytes
        self.piTimeout = piTimeout
    }

    /// Every check, in the order a newcomer would fix them.
    package func run() async -> [DoctorCheck] {
        let (config, configCheck) = loadConfig()
        var checks = [configCheck]
        checks += await piChecks(config.config.pi)
        // Each installed plugin is asked its hello once: its schema and, for a messenger, its setup.
        let installed = PluginDiscovery(directories: PluginDiscovery.searchPath(home: home, environment: environment), disabled: []).scan()
        let hellos = await SetupMessenger.hellos(of: installed.found)
        let messengers = hellos.compactMap { SetupMessenger($0.plugin, hello: $0.hello) }
        checks += sectionChecks(config.config, hellos: hellos, installed: Set(installed.found.map(\.name)))
        // A messenger that needs no setup (the web dashboard) is one to use too, unless disabled.
        let ready = hellos.filter { $0.hello.roles.contains("messenger") && $0.hello.setup == nil }.map(\.plugin.name)
            .filter { !config.config.plugins.disabled.contains($0) }
        checks += await messengerChecks(config, messengers: messengers, withoutSetup: ready)
        checks += fileChecks()
        checks.append(diskCheck())
        var setUp = messengersSetUp(config, messengers: messengers)
        if federationSetUp(config) { setUp.insert("federation") }
        checks += daemonChecks(messengers: Set(messengers.map(\.name)).union(["federation"]), setUp: setUp)
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
            // .env refused (open to others): its own name and its own fix, not config.yaml's.
            if error.file == home.dotenvFile {
                let fix = error.kind == .unsafeFile ? "chmod 600 \(home.dotenvFile)" : "correct .env at the line named (docs/CONFIG.md)"
                return (fallback, .fail("config", ".env", "\(error)", fix: fix))
            }
            // Refused for its mode or owner: the message ends with the command that fixes it.
            if error.kind == .unsafeFile, let command = error.message.components(separatedBy: "run: ").last, command != error.message {
                return (fallback, .fail("config", "config.yaml", "\(error)", fix: command))
            }
            return (fallback, .fail("config", "config.yaml", "\(error)", fix: "correct config.yaml at the line and column named (docs/CONFIG.md)"))
        }
    }

    /// The messengers with a section in config.yaml or a token: the ones the owner means to use.
    package func messengersSetUp(_ loaded: LoadedConfig, messengers: [SetupMessenger]) -> Set<String> {
        let environment = childEnvironment(loaded)
        return Set(
            messengers.filter { kind in
                let section = loaded.config.pluginSections[kind.name]
                return section != nil || kind.tokenVariable(section).flatMap { environment[$0] }.map { !$0.isEmpty } == true
            }.map(\.name))
    }

    /// Each plugin's section checked against the schema its hello declares, as the daemon will
    /// check it: a mistake fails with its line and column. A section for a plugin that is not
    /// installed fails too: nothing would read it.
    package func sectionChecks(_ config: Config, hellos: [(plugin: PluginDiscovery.Found, hello: Hello)], installed: Set<String>) -> [DoctorCheck] {
        let missing = config.pluginSections.keys.sorted().filter { !installed.contains($0) }.map { name in
            DoctorCheck.fail(
                "plugin:\(name)", "plugin \(name)", "config.yaml has a \(name) section, but no \(name) plugin is installed",
                fix: "make install (or make build), or put the plugin in \(home.pluginsDir)")
        }
        return missing
            + hellos.compactMap { plugin, hello in
                let name = plugin.name
                guard let source = config.pluginSources[name] else { return nil }
                do {
                    let checked = try PluginSections.check(
                        source: source, written: config.pluginSections[name], plugin: name, hello: hello, environment: environment)
                    // A misspelt key is ignored, with a warning the daemon only logs: said here.
                    guard !checked.warnings.isEmpty else { return nil }
                    return .pass(
                        "config:\(name)", "config.yaml \(name) section",
                        "loads, with \(checked.warnings.count) warning(s): \(checked.warnings.joined(separator: "; "))")
                } catch {
                    return .fail(
                        "config:\(name)", "config.yaml \(name) section", "\(error)",
                        fix: "correct config.yaml at the line and column named (docs/CONFIG.md)")
                }
            }
    }

    /// Whether the federation's database URL is set (`federation.databaseEnv`, by default
    /// PI_RELAYD_DATABASE_URL): without it the federation plugin is not configured on purpose.
    package func federationSetUp(_ loaded: LoadedConfig) -> Bool {
        let variable = loaded.config.pluginSections["federation"]?["databaseEnv"]?.stringValue ?? BundledSecret.databaseURL
        return !(childEnvironment(loaded)[variable] ?? "").isEmpty
    }

    /// The environment the daemon's children get: ours, then .env's values where ours has none.
    package func childEnvironment(_ loaded: LoadedConfig) -> [String: String] {
        environment.merging(loaded.dotenv) { ours, _ in ours }
    }
}
