import Foundation
import Logging
import PiRelaySDK
import Testing

@testable import Supervisor

/// The approvals audit log survives a line torn by a crash or a full disk: the next decision is
/// still read back, not glued to the torn line and lost with it.
@Suite struct ApprovalLogTests {
    @Test func anEntryAfterATornLineIsKept() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("approval-log-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/approvals.jsonl"
        try Data(#"{"time":"2026-11-29T10:00:00Z","session":"s0","tool":"ba"#.utf8).write(to: URL(fileURLWithPath: path))
        let log = ApprovalLog(path: path, logger: Logger(label: "test"))
        await log.append(try Self.entry())
        let entries = await log.recent(session: nil, limit: 10)
        #expect(entries.count == 1 && entries.first?["session"]?.stringValue == "s1", "\(entries)")
    }

    /// A decision that cannot be written is a problem `status` shows until one is written.
    @Test func aDecisionNotWrittenIsReported() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("approval-log-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = ApprovalLog(path: dir + "/approvals.jsonl", logger: Logger(label: "test"))
        await log.append(try Self.entry())
        let failure = await log.failure
        #expect(failure?.contains("No such file") == true, "\(String(describing: failure))")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        await log.append(try Self.entry())
        #expect(await log.failure == nil)
    }

    static func entry() throws -> ApprovalLog.Entry {
        let request = try ApprovalRequest(params: ["id": "q1", "toolName": "bash", "input": ["command": "rm -rf build"], "rule": "rm"])
        return ApprovalLog.Entry(
            session: "s1", sessionName: "api", request: request, args: "rm -rf build",
            decision: ApprovalDecision(outcome: .approvedOnce, by: "alice on discord"), askedIn: ["discord:1"])
    }
}
