import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What /proc says about processes the daemon started (the tests are not their parent, so they
/// cannot wait for them).
enum ProcessTable {
    /// True while `pid` exists and has not exited; a zombie waiting for its parent counts as gone.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let state = statFields(pid)?.first else { return false }
        return state != "Z" && state != "X"
    }

    /// The parent's pid (the field after the state letter).
    static func parent(of pid: Int32) -> Int32? {
        statFields(pid).flatMap { $0.count > 1 ? Int32($0[1]) : nil }
    }

    /// /proc/PID/stat's fields after the command name, the state letter first. The name is in
    /// parentheses and may hold spaces, so the fields start after its last `)`.
    private static func statFields(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    static func processGroup(of pid: Int32) -> Int32? {
        let group = getpgid(pid)
        return group < 0 ? nil : group
    }

    static func session(of pid: Int32) -> Int32? {
        let session = getsid(pid)
        return session < 0 ? nil : session
    }

    /// Running processes started with `name=value` in their environment: the daemon passes
    /// PI_RELAYD_HOME to every plugin, so this finds a home's children wherever they moved.
    static func pids(withEnvironment name: String, value: String) -> [Int32] {
        let wanted = Array("\(name)=\(value)".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard pid != getpid(), isRunning(pid),
                let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
            else { return false }
            return data.split(separator: 0).contains { Array($0) == wanted }
        }
    }
}
