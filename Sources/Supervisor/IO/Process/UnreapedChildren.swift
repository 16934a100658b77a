import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The children this process has started and not reaped yet: the only pids it signals.
///
/// Once a child is reaped, the kernel may give its pid to any new process, and once its group is
/// empty, the group's id too: another session's fresh pi, or a program of the user's. A signal
/// meant for the dead child would then end a stranger. A pid in this table is still ours (alive,
/// or a zombie nobody reaped), and reaping takes it out under the same lock as a signal's check,
/// so no signal can slip in between.
package enum UnreapedChildren {
    private static let lock = ThreadLock()
    nonisolated(unsafe) private static var pids: Set<pid_t> = []

    /// `pid` was just started by this process.
    package static func started(_ pid: pid_t) {
        lock.withLock { _ = pids.insert(pid) }
    }

    /// Signals `pid`'s process group (every child leads one: `ChildSpawn`), or `pid` alone if its
    /// group is gone; nothing if `pid` was reaped or was never started here. False then.
    @discardableResult
    package static func signalGroup(_ pid: pid_t, _ signal: Int32) -> Bool {
        lock.withLock {
            guard pid > 0, pids.contains(pid) else { return false }
            if kill(-pid, signal) != 0 { kill(pid, signal) }
            return true
        }
    }

    /// Whether `pid` is a child of this process that has not been reaped.
    package static func contains(_ pid: pid_t) -> Bool {
        lock.withLock { pids.contains(pid) }
    }

    /// Reaps `pid`: its exit, or nil while it is still running (`wait: false`). With `wait`, the
    /// wait for the exit happens outside the lock (`WNOWAIT` leaves the child a zombie), so a
    /// signal to another child is never held up by it.
    package static func reap(_ pid: pid_t, wait: Bool) -> ChildExit? {
        if wait {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        }
        return lock.withLock {
            var status: Int32 = 0
            while true {
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid { break }
                if result == 0 { return nil }
                if errno == EINTR { continue }
                pids.remove(pid)
                return .spawnFailed("cannot wait for pid \(pid): \(String(cString: strerror(errno)))")
            }
            pids.remove(pid)
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
            if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
            return .signaled(status & 0x7f)
        }
    }
}
