import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

/// `pi-relayd restart` for a daemon that runs as the systemd user service: systemd restarts it,
/// and the command waits until the new daemon answers.
enum ServiceRestart {
    /// The unit is installed, systemd says it is active, and its main process is this home's
    /// daemon: `PI_RELAYD_HOME=/tmp/x pi-relayd restart` must not restart the service's.
    static func isActive(_ systemd: SystemdUser, home: Home) async -> Bool {
        guard FileManager.default.fileExists(atPath: systemd.unitPath), systemd.systemctl != nil,
            await systemd.run(["is-active", ServiceUnit.name])?.output.trimmed() == "active",
            let main = await systemd.run(["show", "-p", "MainPID", "--value", ServiceUnit.name])?.output.trimmed(), let pid = home.writtenPID
        else { return false }
        return Int32(main) == pid
    }

    /// Restarts the unit; the new daemon's pid once its control socket answers.
    static func restart(_ systemd: SystemdUser, home: Home) async throws -> Int32 {
        let before = home.writtenPID
        guard let outcome = await systemd.run(["restart", ServiceUnit.name]), outcome.status == 0 else {
            throw RemoteError(
                code: .other("restart_failed"), message: "systemctl --user restart \(ServiceUnit.name) failed; see pi-relayd service status")
        }
        let deadline = ContinuousClock.now + DaemonLauncher.startLimit + DaemonLauncher.stopLimit
        while ContinuousClock.now < deadline {
            if let now = home.writtenPID, now != before, ControlClient.isAlive(home.socketPath) { return now }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RemoteError(code: .timeout, message: "the service did not answer after its restart; see journalctl --user -u \(ServiceUnit.name)")
    }
}
