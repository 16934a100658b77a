import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Remembers which delivery ids were handled, on disk, so a delivery replayed after a crash
/// (handled, but the ack never reached the supervisor) is acknowledged without running twice.
/// A plugin may keep one of its own for the parts of a delivery (each message of a long answer),
/// so a repeated delivery sends only what had not gone out.
public actor DeliveryLedger {
    private let path: String
    private var ids: Set<String> = []
    private var order: [String] = []
    private let keep = 4096

    /// A ledger kept in the file at `path` (one id a line).
    public init(path: String) {
        self.path = path
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            for line in text.split(separator: "\n") where !line.isEmpty {
                let id = String(line)
                if ids.insert(id).inserted { order.append(id) }
            }
        }
    }

    /// Whether `id` was recorded.
    public func contains(_ id: String) -> Bool { ids.contains(id) }

    /// Records `id`, on disk before it returns.
    public func record(_ id: String) {
        guard ids.insert(id).inserted else { return }
        order.append(id)
        if order.count > keep * 2 {
            order.removeFirst(order.count - keep)
            ids = Set(order)
            try? (order.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let line = Array((id + "\n").utf8)
        // One write(2) with O_APPEND: a line is never split by another writer or a short write of
        // a regular file.
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
    }
}
