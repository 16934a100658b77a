import PiRelaySDK

/// Turns pi's agent events into run views: when a run starts, how it grows, when it is really
/// over. A pure state machine (no I/O, the clock is passed in), shared by live sessions and by
/// `pi-relayd render`.
struct RunRecorder {
    enum Output {
        case started(RunRecord)
        case updated(RunRecord)
        case finished(RunRecord)
        /// Call `settle(at:)` after this long to learn whether an `agent_end` was final.
        case settleAfter(Duration)
    }

    let sessionID: String
    var sessionName: String
    private(set) var tracker = RunTracker()
    private(set) var run: RunRecord?
    private var runCount = 0

    /// `runsBefore`: runs this session numbered in earlier lives of the daemon; the next is one more.
    init(sessionID: String, sessionName: String, settleWindow: Duration = .milliseconds(400), runsBefore: Int = 0) {
        self.sessionID = sessionID
        self.sessionName = sessionName
        tracker.settleWindow = settleWindow
        runCount = max(0, runsBefore)
    }

    var isBusy: Bool { tracker.isBusy }

    /// How many runs have been numbered, including those of earlier lives.
    var runsNumbered: Int { runCount }

    mutating func rename(_ name: String) {
        sessionName = name
        run?.sessionName = name
    }

    private mutating func begin() -> RunRecord {
        runCount += 1
        let r = RunRecord(sessionID: sessionID, sessionName: sessionName, runID: "\(sessionID)-\(runCount)")
        run = r
        return r
    }

    mutating func apply(_ e: PiEvent, at now: ContinuousClock.Instant) -> [Output] {
        var out: [Output] = []
        switch e.type {
        case .agentStart:
            if tracker.agentStart() == .runStarted { out.append(.started(begin())) }
            return out
        case .agentEnd:
            _ = tracker.agentEnd(at: now)
            return [.settleAfter(tracker.settleWindow)]
        case .messageStart:
            if e.message?.role == "assistant" { run?.assistantMessageStarted() }
            return []
        case .messageUpdate:
            guard let u = e.assistantMessageEvent, let delta = u.delta else { return [] }
            switch u.type {
            case .textDelta?: run?.appendText(delta)
            case .thinkingDelta?: run?.appendThinking(delta)
            default: return []
            }
        case .messageEnd:
            guard let m = e.message, m.role == "assistant" else { return [] }
            if m.stopReason == "error" { run?.notice("error", m.errorMessage ?? "the model returned an error") }
            // No text: the notice's own mark says it ("⏹ Aborted"); "aborted" again read "Aborted: aborted".
            if m.stopReason == "aborted" { run?.notice("aborted", "") }
            if let s = m.stopReason { run?.stopReason = s }
            if let err = m.errorMessage { run?.errorMessage = err }
        case .toolExecutionStart:
            guard let t = e.toolExecution, let tid = t.toolCallID else { return [] }
            run?.toolStarted(id: tid, name: t.toolName ?? "tool", args: (try? t.args?.parse()) ?? [:])
        case .toolExecutionUpdate:
            guard let t = e.toolExecution, let tid = t.toolCallID else { return [] }
            run?.toolUpdated(id: tid, output: t.resultText)
        case .toolExecutionEnd:
            guard let t = e.toolExecution, let tid = t.toolCallID else { return [] }
            run?.toolEnded(id: tid, isError: t.isError ?? false, output: t.resultText, diff: t.diff, exitCode: t.exitCode)
        case .autoRetryStart:
            let r = e.autoRetry
            _ = tracker.autoRetryStart()
            run?.notice(
                "retry",
                "\(r?.errorMessage ?? "error"): retrying (attempt \(r?.attempt ?? 0)/\(r?.maxAttempts ?? 0)) in \((r?.delayMs ?? 0) / 1000) s")
        case .autoRetryEnd:
            let r = e.autoRetry
            if r?.success == false {
                run?.notice("retry-failed", "gave up: \(r?.finalError ?? "retries exhausted")")
                if tracker.autoRetryEnd(success: false, at: now) == .runFinished {
                    return finish(stopReason: "error", error: r?.finalError)
                }
            }
        case .autoCompactionStart:
            let reason = e.autoCompaction?.reason ?? "threshold"
            if tracker.compactionStart() == .runStarted { out.append(.started(begin())) }
            run?.notice("compaction", reason == "overflow" ? "context full: compacting, then retrying" : "compacting the conversation")
        case .autoCompactionEnd:
            let c = e.autoCompaction
            if let err = c?.errorMessage { run?.notice("error", "compaction failed: \(err)") }
            _ = tracker.compactionEnd(willRetry: c?.willRetry ?? false, at: now)
            if c?.willRetry != true { out.append(.settleAfter(tracker.settleWindow)) }
        case .extensionError:
            guard run != nil else { return [] }
            let x = e.extensionError
            run?.notice("extension-error", "extension error (\(x?.extensionPath ?? "?"), \(x?.event ?? "?")): \(x?.error ?? "")")
        default:
            return []
        }
        if let run { out.append(.updated(run)) }
        return out
    }

    mutating func settle(at now: ContinuousClock.Instant) -> [Output] {
        guard tracker.tick(at: now) == .runFinished else { return [] }
        return finish(stopReason: run?.stopReason, error: run?.errorMessage)
    }

    /// `compact`/`new_session` answered: pi aborted the run without its end events.
    mutating func abortedSilently(by command: String) -> [Output] {
        guard tracker.abortedSilently() == .runFinished else { return [] }
        run?.notice(
            command == "compact" ? "compaction" : "info",
            command == "compact" ? "compacted; the run was stopped" : "new conversation; the run was stopped")
        return finish(stopReason: "aborted", error: nil)
    }

    mutating func childExited(reason: String) -> [Output] {
        guard tracker.childExited() == .runFinished else { return [] }
        return finish(stopReason: "error", error: reason)
    }

    /// End of a recorded stream (`render`): whatever is open is over.
    mutating func endOfStream() -> [Output] {
        guard run != nil else { return [] }
        _ = tracker.childExited()
        return finish(stopReason: run?.stopReason, error: run?.errorMessage)
    }

    private mutating func finish(stopReason: String?, error: String?) -> [Output] {
        guard var r = run else { return [] }
        r.finish(stopReason: stopReason, errorMessage: error)
        run = nil
        return [.finished(r)]
    }
}
