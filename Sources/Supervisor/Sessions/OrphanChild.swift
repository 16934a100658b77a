import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// A pi child left running by a daemon that was killed (-9): stopped before its session file
/// is resumed by a new child, so two agents never write the same conversation.
package enum OrphanChild {
    package static func stop(_ pid: Int32, cwd: String, logger: Logger) async {
        guard isPi(pid, cwd: cwd) else { return }
        logger.warning("pi pid \(pid) from before the restart is still running in \(cwd); stopping it")
        signal(pid, SIGTERM)
        for _ in 0..<40 where alive(pid) { try? await Task.sleep(for: .milliseconds(50)) }
        if isPi(pid, cwd: cwd) { signal(pid, SIGKILL) }
        for _ in 0..<40 where alive(pid) { try? await Task.sleep(for: .milliseconds(50)) }
    }

    /// Its group (it led one, as every child does), or the pid alone. Not `ChildProcess`'s, which
    /// signals only this daemon's own children: this one was an earlier daemon's, and was just
    /// checked to be that pi (`isPi`).
    private static func signal(_ pid: Int32, _ signal: Int32) {
        if kill(-pid, signal) != 0 { kill(pid, signal) }
    }

    package static func alive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        // A zombie is dead for our purposes.
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.contains(") Z ")
    }

    /// Only a process that is still an RPC-mode child in this cwd (pids get reused).
    package static func isPi(_ pid: Int32, cwd: String) -> Bool {
        guard alive(pid), let cmd = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let args = cmd.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard args.contains("rpc"), args.contains("--mode") else { return false }
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? ""
        return link == cwd || URL(fileURLWithPath: link).resolvingSymlinksInPath().path == URL(fileURLWithPath: cwd).resolvingSymlinksInPath().path
    }
}
