import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The audit trail of approval decisions: `state/approvals.jsonl`, owner-only, one JSON object a
/// line (who, where, when, the tool, its arguments redacted, the rule, the decision). Kept to
/// about `maxBytes`: past it, the older half is dropped.
package actor ApprovalLog {
    package let path: String
    package let maxBytes: Int
    private let logger: Logger
    /// Why the last decision could not be written, until one is: a problem for `status`, since
    /// an audit trail that silently stops is worse than none.
    package private(set) var failure: String?

    package init(path: String, maxBytes: Int = 1 << 20, logger: Logger) {
        self.path = path
        self.maxBytes = maxBytes
        self.logger = logger
    }

    package struct Entry: Sendable {
        package let session: String
        package let sessionName: String
        package let request: ApprovalRequest
        /// The call's arguments, shortened and redacted as the chats see them (the formatter's
        /// secret patterns included).
        package let args: String
        package let decision: ApprovalDecision
        /// The chats that were asked (messenger:chat keys).
        package let askedIn: [String]

        package var json: JSONValue {
            [
                "time": .string(ISO8601.string(Date())), "session": .string(session), "sessionName": .string(sessionName),
                "id": .string(request.id), "tool": .string(request.toolName), "args": .string(args),
                "rule": .string(request.rule), "decision": .string(decision.outcome.rawValue), "by": .string(decision.by),
                "where": .array(askedIn.map { .string($0) }),
            ]
        }
    }

    package func append(_ entry: Entry) {
        var line = entry.json.serializedBytes()
        line.append(0x0A)
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            failure = "cannot open it: \(String(cString: strerror(errno)))"
            logger.error("cannot write the approval log \(path): \(failure ?? "")")
            return
        }
        var status = stat()
        let before = fstat(fd, &status) == 0 ? status.st_size : 0
        // A line torn by a crash or a full disk would swallow this entry too: start a new line.
        var last: UInt8 = 0x0A
        if before > 0, pread(fd, &last, 1, before - 1) == 1, last != 0x0A { line.insert(0x0A, at: 0) }
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written != line.count {
            let why = written < 0 ? String(cString: strerror(errno)) : "took \(written) of \(line.count) bytes (disk full?)"
            failure = "a decision was not written: \(why)"
            logger.error("the approval log \(path): \(failure ?? "")")
            // What was written of it is no entry; cut it off rather than leave half a line.
            if written > 0 { _ = ftruncate(fd, before) }
        } else {
            failure = nil
        }
        let size = fstat(fd, &status) == 0 ? Int(status.st_size) : 0
        close(fd)
        if size > maxBytes { trim() }
    }

    /// The newest `limit` entries, oldest first; only `session`'s when it is named.
    package func recent(session: String?, limit: Int) -> [JSONValue] {
        let entries = readAll().filter { session == nil || $0["session"]?.stringValue == session }
        return Array(entries.suffix(limit))
    }

    private func readAll() -> [JSONValue] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: 0x0A).compactMap { try? JSONValue.parse(bytes: Array($0)) }
    }

    private func trim() {
        guard let data = FileManager.default.contents(atPath: path) else { return }
        let lines = data.split(separator: 0x0A)
        var kept: [UInt8] = []
        for line in lines.suffix(lines.count / 2) {
            kept.append(contentsOf: line)
            kept.append(0x0A)
        }
        if !AtomicFile.write(kept, to: path) { logger.error("cannot trim the approval log \(path)") }
    }
}
