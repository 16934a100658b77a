import PiRelaySDK
import Testing

@testable import Supervisor

/// When a run is really over (specs/pi-rpc.md §3): agent_end followed by a retry or an overflow
/// compaction is not the end; compact/new_session end a run silently.
@Suite struct RunRecorderTests {
    let t0 = ContinuousClock.now

    func ev(_ line: String) throws -> PiEvent { try PiEventReader().read(line) }

    func finished(_ outs: [RunRecorder.Output]) -> [RunRecord] {
        outs.compactMap { if case .finished(let r) = $0 { return r } else { return nil } }
    }

    func feed(_ rec: inout RunRecorder, _ lines: [String], at t: ContinuousClock.Instant) throws -> [RunRecorder.Output] {
        var all: [RunRecorder.Output] = []
        for l in lines { all += rec.apply(try ev(l), at: t) }
        return all
    }

    static let delta =
        #"{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}]},"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hi","partial":{"role":"assistant","content":[{"type":"text","text":"Hi"}]}}}"#

    @Test func runEndsAfterAQuietSettleWindow() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(&rec, [#"{"type":"agent_start"}"#, Self.delta, #"{"type":"agent_end","messages":[]}"#], at: t0)
        #expect(rec.isBusy)
        #expect(finished(rec.settle(at: t0 + .milliseconds(100))).isEmpty)
        let done = finished(rec.settle(at: t0 + .seconds(1)))
        #expect(done.count == 1)
        #expect(done.first?.text == "Hi")
        #expect(!rec.isBusy)
    }

    @Test func autoRetryAfterAgentEndContinuesTheSameRun() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        var outs = try feed(
            &rec,
            [
                #"{"type":"agent_start"}"#,
                #"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"overloaded"}}"#,
                #"{"type":"agent_end","messages":[]}"#,
                #"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"overloaded"}"#,
            ], at: t0)
        // The backoff is longer than the settle window: still the same run.
        outs += rec.settle(at: t0 + .seconds(3))
        #expect(finished(outs).isEmpty)
        outs = try feed(&rec, [#"{"type":"agent_start"}"#, Self.delta, #"{"type":"agent_end","messages":[]}"#], at: t0 + .seconds(3))
        #expect(!outs.contains { if case .started = $0 { return true } else { return false } })
        let done = finished(rec.settle(at: t0 + .seconds(5)))
        #expect(done.count == 1)
        #expect(done[0].items.contains { if case .notice(.retry, _) = $0 { return true } else { return false } })
    }

    /// pi-rpc §3: an agent loop that throws ends with only `agent_end`, holding a synthetic
    /// error message and no `message_end`: the run ends with that error, not "(no output)".
    @Test func anAgentLoopThatThrowsEndsTheRunWithItsError() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(
            &rec,
            [
                #"{"type":"agent_start"}"#,
                #"{"type":"agent_end","messages":[{"role":"assistant","content":[],"stopReason":"error","errorMessage":"Cannot read properties of undefined"}]}"#,
            ], at: t0)
        let done = finished(rec.settle(at: t0 + .seconds(1)))
        #expect(done.count == 1 && done[0].stopReason == "error" && done[0].errorMessage == "Cannot read properties of undefined", "\(done)")
        #expect(done.first?.items.contains { if case .notice(.error, _) = $0 { return true } else { return false } } == true)
    }

    /// pi-rpc §3: a retry that succeeds ends the run as its last assistant message does. The
    /// failed attempt's error stayed on the run, and a good answer was shown as failed (no
    /// guided buttons under it).
    @Test func aRetryThatSucceedsLeavesNoError() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(
            &rec,
            [
                #"{"type":"agent_start"}"#,
                #"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"overloaded"}}"#,
                #"{"type":"agent_end","messages":[]}"#,
                #"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":100,"errorMessage":"overloaded"}"#,
                #"{"type":"agent_start"}"#, Self.delta,
                #"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}],"stopReason":"stop"}}"#,
                #"{"type":"agent_end","messages":[]}"#,
                #"{"type":"auto_retry_end","success":true,"attempt":1}"#,
            ], at: t0)
        let done = finished(rec.settle(at: t0 + .seconds(2)))
        #expect(done.count == 1 && done[0].errorMessage == nil && done[0].stopReason == "stop", "\(done)")
    }

    @Test func retriesExhaustedEndsTheRun() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        let outs = try feed(
            &rec,
            [
                #"{"type":"agent_start"}"#, #"{"type":"agent_end","messages":[]}"#,
                #"{"type":"auto_retry_start","attempt":3,"maxAttempts":3,"delayMs":100,"errorMessage":"overloaded"}"#,
                #"{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"overloaded"}"#,
            ], at: t0)
        #expect(finished(outs).count == 1)
    }

    @Test func overflowCompactionWithRetryIsNotTheEnd() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(
            &rec,
            [
                #"{"type":"agent_start"}"#, #"{"type":"agent_end","messages":[]}"#,
                #"{"type":"auto_compaction_start","reason":"overflow"}"#,
                #"{"type":"auto_compaction_end","aborted":false,"willRetry":true}"#,
            ], at: t0)
        #expect(finished(rec.settle(at: t0 + .seconds(2))).isEmpty)
        _ = try feed(&rec, [#"{"type":"agent_start"}"#, Self.delta, #"{"type":"agent_end","messages":[]}"#], at: t0 + .seconds(2))
        #expect(finished(rec.settle(at: t0 + .seconds(4))).count == 1)
    }

    /// What a prompt waits for (`PiSession.untilCompacted`): a threshold compaction after the
    /// run, then its settle window; once over, the tracker is idle and a prompt starts a run of
    /// its own.
    @Test func aThresholdCompactionIsCompactingThenSettling() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(
            &rec,
            [
                #"{"type":"agent_start"}"#, Self.delta, #"{"type":"agent_end","messages":[]}"#,
                #"{"type":"auto_compaction_start","reason":"threshold"}"#,
            ],
            at: t0)
        #expect(rec.tracker.isCompacting && !rec.tracker.isSettling)
        _ = try feed(&rec, [#"{"type":"auto_compaction_end","aborted":false,"willRetry":false}"#], at: t0 + .seconds(2))
        #expect(!rec.tracker.isCompacting && rec.tracker.isSettling)
        #expect(finished(rec.settle(at: t0 + .seconds(3))).count == 1)
        #expect(!rec.tracker.isCompacting && !rec.tracker.isSettling && !rec.isBusy)
    }

    @Test func compactResponseEndsARunSilently() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(&rec, [#"{"type":"agent_start"}"#, Self.delta], at: t0)
        let done = finished(rec.abortedSilently(by: "compact"))
        #expect(done.count == 1)
        #expect(done[0].stopReason == "aborted")
        #expect(!rec.isBusy)
    }

    /// The end of a run already ended (a late agent_end after a silent abort) must not make the
    /// next run's agent_start look like a continuation: that run would go unannounced.
    @Test func aLateAgentEndDoesNotSwallowTheNextRun() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(&rec, [#"{"type":"agent_start"}"#, Self.delta], at: t0)
        _ = rec.abortedSilently(by: "compact")
        _ = try feed(&rec, [#"{"type":"agent_end"}"#], at: t0)
        #expect(!rec.isBusy)
        let outs = try feed(&rec, [#"{"type":"agent_start"}"#], at: t0 + .milliseconds(50))
        #expect(outs.contains { if case .started = $0 { return true } else { return false } })
    }

    @Test func extensionCommandPromptWithoutAgentStartStartsNoRun() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        let outs = try feed(&rec, [#"{"id":"r1","type":"response","command":"prompt","success":true}"#], at: t0)
        #expect(outs.isEmpty)
        #expect(!rec.isBusy)
    }

    @Test func parallelToolCallsAreGroupedUnderTheirAssistantMessage() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(
            &rec,
            [
                #"{"type":"agent_start"}"#,
                #"{"type":"message_start","message":{"role":"assistant","content":[]}}"#,
                #"{"type":"tool_execution_start","toolCallId":"a","toolName":"bash","args":{"command":"ls"}}"#,
                #"{"type":"tool_execution_start","toolCallId":"b","toolName":"read","args":{"path":"x"}}"#,
                #"{"type":"tool_execution_update","toolCallId":"b","toolName":"read","args":{"path":"x"},"partialResult":{"content":[{"type":"text","text":"par"}]}}"#,
                #"{"type":"tool_execution_end","toolCallId":"a","toolName":"bash","result":{"content":[{"type":"text","text":"ok"}]},"isError":false}"#,
                #"{"type":"tool_execution_end","toolCallId":"b","toolName":"read","result":{"content":[{"type":"text","text":"partial"}]},"isError":true}"#,
                #"{"type":"message_start","message":{"role":"assistant","content":[]}}"#,
                #"{"type":"tool_execution_start","toolCallId":"c","toolName":"ls","args":{}}"#,
            ], at: t0)
        let run = try #require(rec.run)
        let groups = run.items.compactMap { if case .tools(let c) = $0 { return c } else { return nil } }
        #expect(groups.map { $0.map(\.id) } == [["a", "b"], ["c"]])
        #expect(groups[0][1].isError)
        #expect(groups[0][1].output == "partial")
    }

    @Test func childExitEndsAnOpenRun() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        _ = try feed(&rec, [#"{"type":"agent_start"}"#], at: t0)
        #expect(finished(rec.childExited(reason: "pi exited")).first?.errorMessage == "pi exited")
    }

    /// A terminal pi quit mid-run: the extension ended the run as aborted, then the connection
    /// closed within the settle window. The run ends as it said, not as cut off.
    @Test func aRunThatEndedBeforeTheConnectionClosedKeepsItsOwnEnd() throws {
        var rec = RunRecorder(sessionID: "s", sessionName: "n")
        let aborted =
            #"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}],"stopReason":"aborted","errorMessage":"Request was aborted"}}"#
        _ = try feed(&rec, [#"{"type":"agent_start"}"#, Self.delta, aborted, #"{"type":"agent_end"}"#], at: t0)
        let done = try #require(finished(rec.childExited(reason: "the terminal session detached")).first)
        #expect(done.view.stopReason == "aborted")
        #expect(done.text == "Hi")
        #expect(!rec.isBusy)
    }
}
