import PiRelaySDK

/// Turns pi's agent events into run views: when a run starts, how it grows, when it is really
/// over. A pure state machine (no I/O, the clock is passed in), shared by live sessions and by
/// `pi-relayd render`.
package struct RunRecorder {
    package enum Output {
        case started(RunRecord)
        /// The run (`run`) changed. Without a copy of it: this comes with nearly every line.
        case updated
        case finished(RunRecord)
        /// Call `settle(at:)` after this long to learn whether an `agent_end` was final.
        case settleAfter(Duration)
    }

    package let sessionID: String
    package var sessionName: String
    package private(set) var tracker = RunTracker()
    package private(set) var run: RunRecord?
    private var runCount = 0

    /// `runsBefore`: runs this session numbered in earlier lives of the daemon; the next is one more.
    package init(sessionID: String, sessionName: String, settleWindow: Duration = .milliseconds(400), runsBefore: Int = 0) {
        self.sessionID = sessionID
        self.sessionName = sessionName
        tracker.settleWindow = settleWindow
        runCount = max(0, runsBefore)
    }

    package var isBusy: Bool { tracker.isBusy }

    /// How many runs have been numbered, including those of earlier lives.
    package var runsNumbered: Int { runCount }

    package mutating func rename(_ name: String) {
        sessionName = name
        run?.sessionName = name
    }

    private mutating func begin() -> RunRecord {
        runCount += 1
        let record = RunRecord(sessionID: sessionID, sessionName: sessionName, runID: "\(sessionID)-\(runCount)")
        run = record
        return record
    }

    package mutating func apply(_ event: PiEvent, at now: ContinuousClock.Instant) -> [Output] {
        var out: [Output] = []
        switch event.type {
        case .agentStart:
            if tracker.agentStart() == .runStarted { out.append(.started(begin())) }
            return out
        case .agentEnd:
            // pi-rpc §3: an agent loop that throws ends with only this, its synthetic error
            // message never ended by a `message_end`; the chat would read "(no output)".
            if let last = event.message, last.role == "assistant", last.stopReason == "error", run != nil,
                run?.errorMessage != last.errorMessage
            {
                run?.notice("error", last.errorMessage ?? "the agent failed")
                run?.stopReason = "error"
                run?.errorMessage = last.errorMessage
            }
            _ = tracker.agentEnd(at: now)
            return [.settleAfter(tracker.settleWindow)]
        case .messageStart:
            if event.message?.role == "assistant" { run?.assistantMessageStarted() }
            return []
        case .messageUpdate:
            guard let update = event.assistantMessageEvent, let delta = update.delta else { return [] }
            switch update.type {
            case .textDelta?: run?.appendText(delta)
            case .thinkingDelta?: run?.appendThinking(delta)
            default: return []
            }
        case .messageEnd:
            guard let message = event.message, message.role == "assistant" else { return [] }
            run?.assistantMessageEnded(text: message.text)
            if message.stopReason == "error" { run?.notice("error", message.errorMessage ?? "the model returned an error") }
            // No text: the notice's own mark says it ("⏹ Aborted"); "aborted" again read "Aborted: aborted".
            if message.stopReason == "aborted" { run?.notice("aborted", "") }
            if let reason = message.stopReason { run?.stopReason = reason }
            // The last assistant message says how the run ended: a retry that succeeded clears
            // the failed attempt's error (pi-rpc §3).
            run?.errorMessage = message.errorMessage
            if let usage = message.usage, let parsed = try? usage.parse() { run?.addUsage(parsed) }
        case .toolExecutionStart:
            guard let execution = event.toolExecution, let tid = execution.toolCallID else { return [] }
            run?.toolStarted(id: tid, name: execution.toolName ?? "tool", args: (try? execution.args?.parse()) ?? [:])
        case .toolExecutionUpdate:
            guard let execution = event.toolExecution, let tid = execution.toolCallID else { return [] }
            run?.toolUpdated(id: tid, output: execution.resultText)
        case .toolExecutionEnd:
            guard let execution = event.toolExecution, let tid = execution.toolCallID else { return [] }
            run?.toolEnded(
                id: tid, isError: execution.isError ?? false, output: execution.resultText, diff: execution.diff, exitCode: execution.exitCode)
        case .autoRetryStart:
            let retry = event.autoRetry
            _ = tracker.autoRetryStart()
            run?.notice(
                "retry",
                "\(retry?.errorMessage ?? "error"): retrying (attempt \(retry?.attempt ?? 0)/\(retry?.maxAttempts ?? 0)) in \((retry?.delayMs ?? 0) / 1000) s"
            )
        case .autoRetryEnd:
            let retry = event.autoRetry
            if retry?.success == false {
                run?.notice("retry-failed", "gave up: \(retry?.finalError ?? "retries exhausted")")
                if tracker.autoRetryEnd(success: false, at: now) == .runFinished {
                    return finish(stopReason: "error", error: retry?.finalError)
                }
            }
        case .autoCompactionStart:
            let reason = event.autoCompaction?.reason ?? "threshold"
            if tracker.compactionStart() == .runStarted { out.append(.started(begin())) }
            run?.notice("compaction", reason == "overflow" ? "context full: compacting, then retrying" : "compacting the conversation")
        case .autoCompactionEnd:
            let compaction = event.autoCompaction
            if let err = compaction?.errorMessage { run?.notice("error", "compaction failed: \(err)") }
            _ = tracker.compactionEnd(willRetry: compaction?.willRetry ?? false, at: now)
            if compaction?.willRetry != true { out.append(.settleAfter(tracker.settleWindow)) }
        case .extensionError:
            guard run != nil else { return [] }
            let failure = event.extensionError
            run?.notice("extension-error", "extension error (\(failure?.extensionPath ?? "?"), \(failure?.event ?? "?")): \(failure?.error ?? "")")
        default:
            return []
        }
        if run != nil { out.append(.updated) }
        return out
    }

    package mutating func settle(at now: ContinuousClock.Instant) -> [Output] {
        guard tracker.tick(at: now) == .runFinished else { return [] }
        return finish(stopReason: run?.stopReason, error: run?.errorMessage)
    }

    /// `compact`/`new_session` answered: pi aborted the run without its end events.
    package mutating func abortedSilently(by command: String) -> [Output] {
        guard tracker.abortedSilently() == .runFinished else { return [] }
        run?.notice(
            command == "compact" ? "compaction" : "info",
            command == "compact" ? "compacted; the run was stopped" : "new conversation; the run was stopped")
        return finish(stopReason: "aborted", error: nil)
    }

    /// `abort` answered: a run settling after the abort's own `agent_end` (stopReason
    /// `aborted`) ends now. One that ended by itself, its retry or overflow compaction still to
    /// come, keeps its settle window: the abort may have come too early to cancel that.
    package mutating func abortAnswered() -> [Output] {
        guard run?.stopReason == "aborted", tracker.abortAnswered() == .runFinished else { return [] }
        return finish(stopReason: run?.stopReason, error: run?.errorMessage)
    }

    package mutating func childExited(reason: String) -> [Output] {
        // Its agent_end came first: the run ended as it said (a terminal pi that quits mid-run
        // ends it as aborted before it closes the connection: the pi extension spec's §11 trap 17).
        if case .settling = tracker.phase {
            _ = tracker.childExited()
            return finish(stopReason: run?.stopReason, error: run?.errorMessage)
        }
        guard tracker.childExited() == .runFinished else { return [] }
        return finish(stopReason: "error", error: reason)
    }

    /// End of a recorded stream (`render`): whatever is open is over.
    package mutating func endOfStream() -> [Output] {
        guard run != nil else { return [] }
        _ = tracker.childExited()
        return finish(stopReason: run?.stopReason, error: run?.errorMessage)
    }

    private mutating func finish(stopReason: String?, error: String?) -> [Output] {
        guard var record = run else { return [] }
        record.finish(stopReason: stopReason, errorMessage: error)
        run = nil
        return [.finished(record)]
    }
}
