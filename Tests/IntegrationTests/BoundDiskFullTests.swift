import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A full disk under logs/ and state/ is reported (`status` PROBLEM lines, `problems` in
/// `--json`) while the daemon keeps relaying prompts and deliveries; once space is back, the
/// problems clear.
///
/// The full disk is the daemon's RLIMIT_FSIZE set to one byte with prlimit(2) after start-up:
/// every write to a file then fails with EFBIG, as it would with ENOSPC, and raises SIGXFSZ, whose
/// default action would kill the daemon. Children started before keep their own limit. This
/// works as any user and without a filesystem of our own.
@Suite struct BoundDiskFullTests {
    @Test func aFullDiskIsReportedAndRelayingGoesOn() async throws {
        try await TestHome.with { home in
            let s = try SessionHome(home: home, config: SessionConfig())
            try home.installEcho()
            let daemon = try await s.start()
            try await daemon.waitForRunning("echo")
            let id = try await s.new(name: "full")
            try await s.prompt(id, "before")
            #expect(try await Self.problems(s).isEmpty)

            try BoundFileSizeLimit.set(daemon.pid, bytes: 1)
            // A rename saves state/sessions.json; a prompt writes to the log.
            _ = try await s.plain("rename", id, "renamed-while-full")
            try await s.prompt(id, "while the disk is full")
            #expect(try await s.last(id) == "Echo: while the disk is full")
            let delivered = try await home.run("plugin", "call", "echo", "test.note", "{\"n\":1}", "--deliver")
            #expect(delivered.status == 0, "\(delivered)")
            try await waitUntil("echo received the delivery") {
                home.read("state/plugins/echo/received.jsonl").contains("\"n\":1")
            }

            // A schedule a restart would forget is not made: the owner is told at once.
            let scheduled = try await home.run("schedule", "add", "renamed-while-full", "every", "1h", "check", "the", "build")
            #expect(scheduled.status != 0 && scheduled.stderr.contains("cannot save the schedules"), "\(scheduled)")
            #expect(try await s.json("schedule", "list") == [])

            let problems = try await waitFor("status reports the full disk") {
                let p = try await Self.problems(s)
                return p.contains { $0.hasPrefix("daemon log:") } && p.contains { $0.hasPrefix("sessions not saved:") } ? p : nil
            }
            #expect(problems.filter { !$0.hasPrefix("plugin ") }.allSatisfy { $0.contains("File too large") }, "\(problems)")
            let status = try await home.run("status")
            #expect(status.status == 0, "\(status)")
            #expect(status.stdout.contains("PROBLEM: daemon log: cannot write \(home.logsDir)/pi-relayd.log"), "\(status)")
            #expect(status.stdout.contains("PROBLEM: sessions not saved:"), "\(status)")
            #expect(daemon.process.poll() == nil, "the daemon survived its failed writes")

            try BoundFileSizeLimit.set(daemon.pid, bytes: nil)
            _ = try await s.plain("rename", id, "renamed-after")
            try await s.prompt(id, "after")
            // The next delivery is journaled whole, not glued to a record the full disk cut short
            // (which would lose it on the next start). Echo is stopped so the record stays.
            let echo = try #require(try await daemon.plugins()["echo"]?.pid)
            kill(echo, SIGSTOP)
            let queued = try await home.run("plugin", "call", "echo", "test.note", "{\"n\":2}", "--deliver")
            #expect(queued.status == 0, "\(queued)")
            let journal = home.read("state/outbox/echo.jsonl").split(separator: "\n")
            kill(echo, SIGCONT)
            #expect(journal.allSatisfy { (try? JSONValue.parse(String($0))) != nil }, "torn journal: \(journal)")
            #expect(journal.contains { $0.contains("\"n\":2") }, "\(journal)")
            var remaining: [String] = []
            do {
                try await waitUntil("the problems clear once writes succeed again") {
                    remaining = try await Self.problems(s)
                    return remaining.isEmpty
                }
            } catch {
                Issue.record("still reported: \(remaining)")
            }
            #expect(home.daemonLog.contains("session state saved again"))
            let saved = try JSONValue.parse(home.read("state/sessions.json"))
            #expect(saved.serialized().contains("renamed-after"), "sessions.json was written again: \(saved)")
        }
    }

    static func problems(_ s: SessionHome) async throws -> [String] {
        try await s.json("status")["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

extension BoundDiskFullTests {
    /// The record of the chat messages acted on (`chat-messages.json`) is what keeps a message a
    /// messenger hands over again after a crash from prompting pi twice. While it cannot be
    /// saved, `status` says so, until a save succeeds.
    @Test func aChatMessagesRecordNotSavedIsAProblemUntilItIs() async throws {
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start()
            _ = try await chat.newBoundSession("full")
            func problems() async throws -> [String] {
                try await chat.run(["status", "--json"]).json()["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            }
            try BoundFileSizeLimit.set(daemon.pid, bytes: 1)
            #expect(try await chat.say("while the disk is full")["status"] == "prompted")
            let found = try await waitFor("status names the record") {
                let p = try await problems()
                return p.contains { $0.hasPrefix("chat-messages.json not saved:") } ? p : nil
            }
            #expect(found.contains { $0.hasPrefix("chat-messages.json not saved:") && $0.contains("File too large") }, "\(found)")

            try BoundFileSizeLimit.set(daemon.pid, bytes: nil)
            _ = try await chat.waitForFinal(1)
            #expect(try await chat.say("once there is room")["status"] != nil)
            try await waitUntil("the problem clears once the record is saved") {
                try await !problems().contains { $0.hasPrefix("chat-messages.json") }
            }
        }
    }
}
