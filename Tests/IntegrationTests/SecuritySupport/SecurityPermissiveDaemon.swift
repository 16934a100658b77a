import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `pi-relayd start --foreground` under umask 000, so a file or socket the daemon does not
/// restrict itself comes out readable and writable by everyone: the modes then show its own
/// guards, not the test runner's umask. Started through /bin/sh (which sets the umask and
/// execs); the test stops it before its home is torn down.
final class SecurityPermissiveDaemon: Sendable {
    let process: SpawnedProcess
    let home: TestHome

    init(home: TestHome) async throws {
        self.home = home
        process = try SpawnedProcess(
            "/bin/sh", ["-c", "umask 000 && exec \"$0\" start --foreground", BuildProducts.relayd],
            environment: home.environment(),
            stdoutPath: home.scratch + "/permissive.out", stderrPath: home.scratch + "/permissive.err")
        try await waitUntil("the permissive daemon listens", timeout: .seconds(30)) {
            if let exit = process.poll() {
                throw Daemon.StartFailure(description: "pi-relayd exited (\(exit)) before listening:\n\(process.stderr)")
            }
            return ControlSocket.accepts(home.socketPath)
        }
    }

    var pid: Int32 { process.pid }

    /// SIGTERM and the exit, which must be clean.
    func stop() async -> ProcessExit? {
        process.signal(SIGTERM)
        if let exit = await process.wait(timeout: .seconds(20)) { return exit }
        process.signalGroup(SIGKILL)
        return await process.wait(timeout: .seconds(10))
    }
}
