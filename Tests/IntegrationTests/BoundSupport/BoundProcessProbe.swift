import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What /proc says about the daemon's resources: its open file descriptors and the children it
/// has not reaped.
enum BoundProcessProbe {
    /// Entries of /proc/<pid>/fd; nil once the process is gone.
    static func openDescriptors(_ pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// Where each open descriptor points (`pipe:[123]`, a path, `socket:[45]`), for a failure
    /// message that shows what leaked.
    static func descriptorTargets(_ pid: Int32) -> [String] {
        let dir = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0) }.sorted()
    }

    /// Children of `parent` with their state letter (`Z` for a zombie), from /proc/<pid>/stat.
    /// A sanitized daemon's symbolizer (started to print a sanitizer report) is not counted: it
    /// is the sanitizer runtime's helper, not a process the daemon started.
    static func children(of parent: Int32) -> [(pid: Int32, state: Character)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.compactMap { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the command name: " S PPID ...".
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let state = fields[0].first, Int32(fields[1]) == parent,
                stat[stat.index(after: open)..<close] != "llvm-symbolizer"
            else { return nil }
            return (pid, state)
        }
    }

    static func zombies(of parent: Int32) -> [Int32] {
        children(of: parent).filter { $0.state == "Z" }.map(\.pid)
    }
}
