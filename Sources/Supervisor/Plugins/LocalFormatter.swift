import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The formatter plugin run by the CLI itself (`render`, `send --wait`, `stream --pretty`), with
/// the formatter section of the home's config, so a terminal shows runs as the chats do,
/// redaction rules included.
package struct LocalFormatter {
    package let client: PluginClient
    private let work: String

    /// Starts the installed formatter, or the one at `path`.
    package static func start(_ home: Home, path: String? = nil) async throws -> LocalFormatter {
        guard let executable = path.map(Home.absolute) ?? installed(home) else {
            throw RemoteError(
                code: .notFound, message: "no formatter plugin found in \(home.pluginsDir) or the bundled plugin folder; pass --formatter PATH")
        }
        let config =
            (try? ConfigLoader.load(home: home.root, knownPlugins: ["formatter"], environment: ProcessInfo.processInfo.environment))?
            .config.pluginSections["formatter"] ?? [:]
        let work = try PrivateTempFolder.make("pi-relayd-formatter")
        let client = PluginClient()
        await client.spawn(path: executable, workingDirectory: work)
        let formatter = LocalFormatter(client: client, work: work)
        do {
            _ = try await client.start(config: config, stateDir: work)
        } catch {
            await formatter.stop()
            throw error
        }
        return formatter
    }

    package func stop() async {
        await client.stop()
        try? FileManager.default.removeItem(atPath: work)
    }

    package static func installed(_ home: Home) -> String? {
        PluginDiscovery.installed("formatter", home: home)
    }
}
