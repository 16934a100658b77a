import Foundation
import PiRelaySDK
import Testing

/// pi's run lifecycle quirks (specs/pi-rpc.md §2, §3): `agent_end` that is not the end, runs
/// aborted without their end events, UI requests before the first response.
@Suite struct SessionRunQuirkTests {
    @Test func autoRetryAndOverflowCompactionAfterAgentEndAreStillOneRun() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "r")

            // Two overloaded errors, each followed by agent_end and an auto-retry, then success.
            try await s.prompt(id, "!scenario error-retry 2")
            var finished = try await s.history(id, "--type", "run_finished")
            #expect(finished.count == 1, "one run, although pi sent three agent_end: \(finished)")
            #expect(finished.last?["stopReason"] == "stop", "\(finished)")
            #expect(try await s.history(id, "--type", "agent_end").count == 3)
            #expect(try await s.history(id, "--type", "auto_retry_start").count == 2)
            #expect(try await s.history(id, "--type", "auto_retry_end").first?["success"] == true)

            // Context overflow: agent_end, compaction with willRetry, a new agent_start.
            try await s.prompt(id, "!scenario overflow")
            finished = try await s.history(id, "--type", "run_finished")
            #expect(finished.count == 2, "\(finished)")
            #expect(finished.last?["stopReason"] == "stop", "\(finished)")
            let compaction = try await s.history(id, "--type", "auto_compaction_end")
            #expect(compaction.last?["willRetry"] == true, "\(compaction)")

            // Retries exhausted: the run ends, as an error.
            try await s.prompt(id, "!scenario error-exhausted")
            finished = try await s.history(id, "--type", "run_finished")
            #expect(finished.count == 3, "\(finished)")
            #expect(finished.last?["stopReason"] == "error", "\(finished)")
            #expect(try await s.history(id, "--type", "auto_retry_end").last?["success"] == false)

            #expect(try await s.summary(id)?["state"] == "idle")
        }
    }

    /// pi-rpc spec §3: pi is not streaming during a retry's back-off, so a prompt sent then runs
    /// at once, as a run of its own (§5), and the retry it pre-empts never comes (pi extension
    /// spec §11 trap 7). The prompt waits for the retry's run to start, and then queues behind
    /// it.
    @Test func aPromptDuringARetrysBackOffWaitsBehindTheRetry() async throws {
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_RETRY_BASE_MS": "2000"])) { s in
            try await s.start()
            let id = try await s.new(name: "retry")
            _ = try await s.json("send", "retry", "!scenario error-retry 1")
            try await waitUntil("the back-off") { try await s.history(id, "--type", "auto_retry_start").count == 1 }
            // Sent once the retry's run started: queued behind it, or prompted if that run was over.
            let sent = try await s.plain("send", "retry", "after the retry")
            #expect(["queued\n", "prompted\n"].contains(sent), "\(sent)")
            try await waitUntil("the prompt ran", timeout: .seconds(60)) { try await s.last(id) == "Echo: after the retry" }
            #expect(try await s.history(id, "--type", "auto_retry_end").first?["success"] == true, "the retry went through")
        }
    }

    @Test func compactAndNewConversationDuringARunEndItSilently() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "a")
            try await s.prompt(id, "warm up")

            // pi aborts the run for the compaction and never sends its agent_end.
            let before = try await s.finishedRuns(id)
            _ = try await s.json("send", "a", "!scenario slow 400 50")
            try await s.waitForState(id, "busy")
            #expect(try await s.plain("compact", "a").hasPrefix("compacted"))
            let idle = try await s.waitForState(id, "idle", timeout: .seconds(10))
            #expect(idle["state"] == "idle")
            #expect(try await s.finishedRuns(id) == before + 1)
            #expect(try await s.history(id, "--type", "run_finished").last?["stopReason"] == "aborted")
            #expect(try await s.history(id, "--type", "compacted").count == 1)
            // Nothing of the aborted run follows later.
            #expect(try await s.json("state", "a")["isStreaming"] == false)

            _ = try await s.json("send", "a", "!scenario slow 400 50")
            try await s.waitForState(id, "busy")
            #expect(try await s.json("new-conversation", "a") == ["cancelled": false])
            try await s.waitForState(id, "idle", timeout: .seconds(10))
            #expect(try await s.finishedRuns(id) == before + 2)
            #expect(try await s.history(id, "--type", "new_conversation").count == 1)

            // The session works on normally.
            try await s.prompt(id, "after")
            #expect(try await s.last(id) == "Echo: after")
            #expect(try await s.finishedRuns(id) == before + 3)
        }
    }

    /// pi-rpc spec §2: `compact` aborts a running agent before anything can refuse it, with its
    /// events detached, so the aborted run's `agent_end` never comes; an extension's veto
    /// ("Compaction cancelled", quirk 2) comes after. The run is over all the same: it ended,
    /// instead of staying busy for good and taking the next prompt for a follow-up.
    @Test func aCompactRefusedDuringARunStillEndsIt() async throws {
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_CANCEL_COMPACT": "1"])) { s in
            try await s.start()
            let id = try await s.new(name: "veto")
            try await s.prompt(id, "warm up")
            let before = try await s.finishedRuns(id)
            _ = try await s.json("send", "veto", "!scenario slow 400 50")
            try await s.waitForState(id, "busy")
            let refused = try await s.run("compact", "veto")
            #expect(refused.status != 0 && refused.stderr.contains("Compaction cancelled"), "\(refused)")
            try await s.waitForState(id, "idle", timeout: .seconds(10))
            #expect(try await s.finishedRuns(id) == before + 1)
            #expect(try await s.history(id, "--type", "run_finished").last?["stopReason"] == "aborted")
            #expect(try await s.json("state", "veto")["isStreaming"] == false)

            // The next prompt is a run of its own, answered as such.
            #expect(try await s.plain("send", "veto", "after") == "prompted\n")
            try await waitUntil("the next run finished") { try await s.finishedRuns(id) == before + 2 }
            #expect(try await s.last(id) == "Echo: after")
        }
    }

    @Test func extensionUIRequestsBeforeTheFirstResponse() async throws {
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_STARTUP_UI": "1"])) { s in
            try await s.start()
            let id = try await s.new(name: "ui")
            let ui = try await s.history(id, "--type", "ui")
            #expect(ui.compactMap { $0["method"]?.stringValue } == ["setTitle", "setWidget", "setStatus"], "\(ui)")
            #expect(ui.first?["title"] == "pi RPC Demo")
            #expect(try await s.summary(id)?["state"] == "idle")
            try await s.prompt(id, "hi")
            #expect(try await s.last(id) == "Echo: hi")
        }
    }
}
