import FoundationEssentials
import PiRelaySDK

/// What a session is doing, as a pure state machine: its lifecycle (starting, up, exited,
/// attached), the run being recorded and the runs around it, where the prompt being worked on
/// came from, and when anything last happened. Fed pi's events, the silent ends of runs and the
/// clock, it answers with what the session must do (save, tell, record, look again later). No
/// I/O: `PiSession` does the actions, in order.
package struct SessionMachine {
    package enum Action {
        /// A new run: the last run's tool images go.
        case forgetImages
        /// Save the session's record.
        case save
        /// Tell the observer.
        case tell(SessionNews)
        /// The run in progress changed: offer it to the observer, and call `changeTaken()` when
        /// the observer does not take it.
        case offer(RunRecord)
        /// A history entry.
        case record(type: String, preview: JSONValue)
        /// Call `settle` after this long, to learn whether an `agent_end` was final.
        case settleAfter(Duration)
        /// Save if `runEnded(runID)`: its final has been told and no run started meanwhile.
        case saveIfEnded(runID: String)
        /// Abort the run that just started: it was stopped before it began (`stopRequested`).
        case abort
    }

    package var lifecycle = SessionLifecycle()
    private var recorder: RunRecorder
    package private(set) var runs: SessionRuns
    /// Started afresh for idleness and nothing happened since (`sessions.limits.onIdle`).
    package var freshConversation = false
    /// Where the prompt being worked on came from (a chat's key, `terminal`, ...): a gate asks there.
    package var promptOrigin: String?
    /// Latencies, timeouts and queued prompts, for `status` and `/metrics`.
    package var health = SessionHealth()
    package private(set) var lastActivity: Date
    /// When a prompt that should start a run was sent while the agent was idle, until its run is
    /// seen to start (or pi refuses it, or is gone): a prompt sent meanwhile queues behind it.
    private var promptInFlightSince: ContinuousClock.Instant?
    /// How long a sent prompt counts as a run about to start: pi's pre-run phase (the API-key
    /// lookup, `before_agent_start` handlers) is well under this.
    package static let promptStartWindow: Duration = .seconds(5)
    /// A stop came while a prompt was in pi's pre-run phase, where pi's abort finds no run and
    /// does nothing (pi extension spec §11 trap 10): the run it starts is aborted as it starts.
    private var stopPending = false

    package init(record: SessionRecord, settleWindow: Duration = .milliseconds(400)) {
        if record.terminal != nil { lifecycle = SessionLifecycle(phase: .detached) }
        recorder = RunRecorder(sessionID: record.id, sessionName: record.name, settleWindow: settleWindow, runsBefore: record.runs ?? 0)
        runs = SessionRuns(interrupted: record.activeRun)
        lastActivity = record.lastActivity
    }

    package var isBusy: Bool { recorder.isBusy }

    /// pi compacts on its own (`auto_compaction_start` seen, its end not yet).
    package var isCompacting: Bool { recorder.tracker.isCompacting }

    /// A retry's back-off runs (`auto_retry_start` seen, its `agent_start` not yet).
    package var isRetrying: Bool { recorder.tracker.isRetrying }

    /// The run's last `agent_end` or compaction ended, and the settle window runs.
    package var isSettling: Bool { recorder.tracker.isSettling }
    /// The run in progress.
    package var run: RunRecord? { recorder.run }
    /// Runs numbered so far, in this daemon's life and before.
    package var runsNumbered: Int { recorder.runsNumbered }

    /// What the session is doing, with `openQuestions` of them waiting.
    package func state(openQuestions: Int) -> SessionState {
        lifecycle.state(busy: recorder.isBusy, openQuestions: openQuestions)
    }

    /// A prompt was handed to pi while the agent was idle: until its run starts, the next prompt
    /// will queue behind it (pi-rpc spec §5). A `/command` may be an extension's, which starts
    /// no run, so it does not count.
    package mutating func promptSent(_ text: String, at now: ContinuousClock.Instant) {
        guard !recorder.isBusy, !text.hasPrefix("/") else { return }
        promptInFlightSince = now
        health.prompted(at: now)
    }

    /// An `abort` is sent. With a prompt in its pre-run phase (sent, its run not started yet, for
    /// as long as a compaction may take), the stop is kept for the run it starts.
    package mutating func stopRequested() {
        if !recorder.isBusy, promptInFlightSince != nil { stopPending = true }
    }

    /// pi refused the prompt after taking it: no run comes of it.
    package mutating func promptRefused() {
        promptInFlightSince = nil
        stopPending = false
        health.promptRefused()
    }

    /// Whether a prompt sent a moment ago is about to start a run that has not been seen yet.
    package func runAboutToStart(at now: ContinuousClock.Instant) -> Bool {
        guard !recorder.isBusy, let since = promptInFlightSince else { return false }
        return now - since < Self.promptStartWindow
    }

    /// Something happened (a command, an attach): the idle clock starts again.
    package mutating func active(at now: Date) {
        lastActivity = now
    }

    package mutating func rename(_ name: String) {
        recorder.rename(name)
    }

    /// One of pi's events. A response is no activity of the agent's: commands count themselves.
    package mutating func apply(_ event: PiEvent, at now: ContinuousClock.Instant, date: Date) -> [Action] {
        if event.type != .response { lastActivity = date }
        return actions(recorder.apply(event, at: now), at: now, date: date)
    }

    /// After `settleAfter`: whether the run ended.
    package mutating func settle(at now: ContinuousClock.Instant, date: Date) -> [Action] {
        actions(recorder.settle(at: now), at: now, date: date)
    }

    /// `compact`, `new_session` or `switch_session` answered: pi aborted any run without its end.
    package mutating func abortedSilently(by command: String, date: Date) -> [Action] {
        if command != "compact" { health.conversationReplaced() }
        return actions(recorder.abortedSilently(by: command), at: .now, date: date)
    }

    /// `abort` answered: a run waiting out its settle window is over (`RunTracker.abortAnswered`).
    package mutating func abortAnswered(date: Date) -> [Action] {
        actions(recorder.abortAnswered(), at: .now, date: date)
    }

    /// pi is gone: a run in flight ends.
    package mutating func childExited(reason: String, date: Date) -> [Action] {
        promptInFlightSince = nil
        stopPending = false
        health.childExited()
        return actions(recorder.childExited(reason: reason), at: .now, date: date)
    }

    /// The observer did not take the offered run, or fetched it: the next change is offered.
    package mutating func changeTaken() {
        runs.changeTaken()
    }

    /// The run `runID` as it is now, for an observer that was offered it; nil once it is over.
    package mutating func fetch(_ runID: String) -> RunRecord? {
        guard let run = recorder.run, run.runID == runID else { return nil }
        runs.changeTaken()
        return run
    }

    /// See `saveIfEnded`.
    package mutating func runEnded(_ runID: String) -> Bool {
        runs.ended(runID)
    }

    private mutating func actions(_ outputs: [RunRecorder.Output], at now: ContinuousClock.Instant, date: Date) -> [Action] {
        var actions: [Action] = []
        for output in outputs {
            switch output {
            case .started(let run):
                promptInFlightSince = nil
                // Saved before anyone sees the run: a daemon killed now must not number a later
                // run the same, and must say at its restart that this one was cut off.
                runs.started(run, origin: promptOrigin, at: date)
                health.runStarted(at: now)
                freshConversation = false
                actions += [.forgetImages, .save, .tell(.runStarted(run))]
                if stopPending {
                    stopPending = false
                    actions.append(.abort)
                }
            case .updated:
                if health.awaitsText { health.runChanged(hasText: recorder.run.map { !$0.text.isEmpty } ?? false, at: now) }
                guard let run = recorder.run, runs.changed() else { continue }
                actions.append(.offer(run))
            case .finished(let run):
                runs.finished(run, at: date)
                health.runFinished(at: now)
                actions += [
                    .record(type: "run_finished", preview: ["runId": .string(run.runID), "stopReason": JSONValue(run.stopReason)]),
                    .tell(.runFinished(run)), .saveIfEnded(runID: run.runID),
                ]
            case .settleAfter(let window):
                actions.append(.settleAfter(window))
            }
        }
        return actions
    }
}
