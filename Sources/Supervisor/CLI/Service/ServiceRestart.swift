import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

/// `pi-relayd restart` for a daemon that runs as the systemd user service: systemd restarts it,
/// and the command waits until the new daemon answers.
enum ServiceRestart {
    /// The unit is installed and systemd says it is active: the daemon is the service's.
    static func isActive(_ systemd: SystemdUser) async -> Bool {
        guard FileManager.default.fileExists(atPath: systemd.unitPath), systemd.systemctl != nil else { return false }
        return await systemd.run(["is-active", ServiceUnit.name])?.output.trimmed() == "active"
    }

    /// Restarts the unit; the new daemon's pid once its control socket answers.
    static func restart(_ systemd: SystemdUser, home: Home) async throws -> Int32 {
        let before = pid(home)
        guard let outcome = await systemd.run(["restart", ServiceUnit.name]), outcome.status == 0 else {
            throw RemoteError(
                code: .other("restart_failed"), message: "systemctl --user restart \(ServiceUnit.name) failed; see pi-relayd service status")
        }
        let deadline = ContinuousClock.now + DaemonLauncher.startLimit + DaemonLauncher.stopLimit
        while ContinuousClock.now < deadline {
            if let now = pid(home), now != before, ControlClient.isAlive(home.socketPath) { return now }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RemoteError(code: .timeout, message: "the service did not answer after its restart; see journalctl --user -u \(ServiceUnit.name)")
    }

    private static func pid(_ home: Home) -> Int32? {
        (try? String(contentsOfFile: home.pidFile, encoding: .utf8)).flatMap { Int32($0.trimmed()) }
    }
}
