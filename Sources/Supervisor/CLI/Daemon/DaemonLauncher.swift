import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// Starting the daemon in the background and stopping it, with the waits `start`, `stop` and
/// `restart` share (a progress line on a terminal while they last).
enum DaemonLauncher {
    /// A daemon started in the background.
    struct Started {
        let pid: pid_t
        let socket: String
        let log: String

        var json: JSONValue {
            ["started": true, "running": true, "pid": JSONValue(Int(pid)), "socket": .string(socket), "log": .string(log)]
        }
    }

    /// `restart` refused: the config would not start.
    struct NotRestarted: Error, CustomStringConvertible {
        let reason: String
        var description: String { "not restarted (the running daemon, if any, keeps running): \(reason)" }
    }

    /// How long `start` waits for the control socket, and `stop` for it to go.
    static let startLimit = Duration.seconds(10)
    static let stopLimit = Duration.seconds(15)
    private static let pollInterval: useconds_t = 50_000

    /// Starts `pi-relayd start --foreground` detached and waits for its control socket, or for
    /// the child to die and say why.
    static func startDetached(_ home: Home) throws -> Started {
        try home.prepare()
        let errFile = home.stateDir + "/start.err"
        let pid = try Detach.spawnSelf(arguments: ["start", "--foreground"], stderrPath: errFile)
        let progress = ProgressLine("starting pi-relayd")
        defer { progress.finish() }
        let deadline = ContinuousClock.now + startLimit
        while ContinuousClock.now < deadline {
            if ControlClient.isAlive(home.socketPath) {
                return Started(pid: pid, socket: home.socketPath, log: home.logsDir + "/pi-relayd.log")
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let why = (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? ""
                let lines = why.split(separator: "\n").filter { !$0.contains(" info ") && !$0.contains(" notice ") }
                throw RemoteError(code: .other("start_failed"), message: "pi-relayd did not start:\n" + lines.suffix(10).joined(separator: "\n"))
            }
            usleep(pollInterval)
            progress.tick()
        }
        throw RemoteError(code: .timeout, message: "no control socket after \(startLimit); see \(home.logsDir)/pi-relayd.log")
    }

    /// Asks the daemon to stop and waits until its socket is gone (plugins and sessions shut
    /// down in order first) and its lock is free, so a `start` right after cannot find the old
    /// daemon still on its way out. Throws `ControlClient.NotRunning` when there is no daemon.
    static func stop(_ home: Home) throws {
        // Its process, so that `stop` returns once it is gone: it frees the lock a moment
        // before it exits, and a script that checks for the process after `stop` must not
        // find it.
        let pid = home.writtenPID
        _ = try home.client.call(.stop)
        let progress = ProgressLine("stopping pi-relayd")
        defer { progress.finish() }
        let deadline = ContinuousClock.now + stopLimit
        while ContinuousClock.now < deadline {
            if !ControlClient.isAlive(home.socketPath) && lockIsFree(home) && !(pid.map(OrphanChild.alive) ?? false) { return }
            usleep(pollInterval)
            progress.tick()
        }
        throw RemoteError(code: .timeout, message: "still running after \(stopLimit)")
    }

    /// Whether no daemon holds the home's lock (`Daemon.acquireLock`).
    static func lockIsFree(_ home: Home) -> Bool {
        let fd = open(home.lockFile, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return false }
        flock(fd, LOCK_UN)
        return true
    }
}
