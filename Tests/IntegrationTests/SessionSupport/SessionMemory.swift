import Foundation

/// A process's resident memory, from /proc/<pid>/status.
enum SessionMemory {
    /// VmRSS in bytes; nil once the process is gone.
    static func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        return kilobytes.map { $0 * 1024 }
    }
}
