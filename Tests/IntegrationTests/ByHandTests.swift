import Foundation
import Testing

/// A plugin started by hand (no PI_RELAY_PLUGIN) explains itself and exits 64.
@Suite struct ByHandTests {
    /// The Python example, and the bundled Swift plugins that have been built.
    static let plugins: [String] =
        [RepoPaths.echoExample]
        + ["pi-relay-formatter", "pi-relay-discord", "pi-relay-attachments"]
        .map(BuildProducts.executable)
        .filter { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(arguments: plugins)
    func runByHandExplainsItselfAndExits64(_ path: String) async throws {
        try await TestHome.with(gated: false) { home in
            var environment = home.environment()
            environment["PI_RELAY_PLUGIN"] = nil
            let process = try SpawnedProcess(
                path, [], environment: environment,
                stdoutPath: home.scratch + "/out", stderrPath: home.scratch + "/err")
            let exit = await process.wait(timeout: .seconds(30))
            if exit == nil { process.signalGroup(SIGKILL) }
            #expect(exit == .exited(64), "\(path): \(process.stderr)")
            let said = (process.stdout + process.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(said.count > 40, "says what it is: \(said)")
            #expect(said.contains("pi-relayd"), "\(said)")
        }
    }
}
