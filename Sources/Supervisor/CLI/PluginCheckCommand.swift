import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct PluginCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run a plugin through protocol v1 and, for a messenger with a driver, through what its users see; report each step.",
        discussion: """
            Protocol steps need nothing more. A messenger's service steps (an inbound prompt, a stream \
            edited in place, a long final, a question answered by button, exactly once after a SIGKILL) \
            need a driver that plays the user on the service: docs/PROTOCOL.md, "Writing a messenger".
            """)

    @Argument(help: "The plugin: its id (found like the daemon finds it) or a path to the executable.") var plugin: String
    @Option(help: ArgumentHelp("The plugin's config section, as YAML (default: its section of config.yaml).", valueName: "SECTION.yaml"))
    var config: String?
    @Option(help: ArgumentHelp("A command that plays the user on the chat service (run with /bin/sh -c).", valueName: "CMD"))
    var driver: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let home = Home.resolve()
        let path: String
        if plugin.contains("/") {
            path = Home.absolute(plugin)
        } else if let found = PluginDiscovery.installed(plugin, home: home) {
            path = found
        } else {
            CLIFailure.exit(
                RemoteError(code: .notFound, message: "no plugin \(plugin) in \(home.pluginsDir) or the bundled folder; give its path"),
                json: output.json)
        }
        let id = String(path.split(separator: "/").last ?? "")
        let environment = ProcessInfo.processInfo.environment
        let section: (written: JSONValue, source: PluginSectionSource?)
        let dotenv: [String: String]
        do {
            let loaded = try ConfigLoader.load(home: home.root, knownPlugins: [id], environment: environment)
            dotenv = loaded.dotenv
            section =
                try config.map { try ConfigLoader.section(file: Home.absolute($0), plugin: id, home: environment["HOME"]) }
                ?? (loaded.config.pluginSections[id] ?? [:], loaded.config.pluginSources[id])
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
        let check = PluginCheck(path: path, config: section.written, source: section.source, environment: dotenv, driver: driver, home: home)
        let steps = await check.run()
        let ok = !steps.contains { $0.outcome == .failed }
        let json: JSONValue = [
            "conforms": .bool(ok),
            "checks": .array(
                steps.map {
                    [
                        "name": .string($0.name), "passed": .bool($0.passed), "outcome": .string($0.outcome.rawValue),
                        "detail": .string($0.detail),
                    ]
                }),
        ]
        let skipped = steps.filter { $0.outcome == .skipped }.count
        output.emit(json) {
            steps.map(\.line).joined(separator: "\n") + "\n"
                + (ok ? "conforms to plugin protocol v1" : "does NOT conform to plugin protocol v1")
                + (skipped > 0 ? " (\(skipped) step\(skipped == 1 ? "" : "s") skipped)" : "")
        }
        if !ok { throw ExitCode(1) }
    }
}
