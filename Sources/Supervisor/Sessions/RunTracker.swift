/// Knows whether the agent is working. A pure state machine fed pi's events and the clock.
///
/// `agent_end` is not always the end: an auto-retry or an overflow compaction can follow and
/// start the agent again. So a run ends only when `agent_end` is not followed within a settle
/// window by one of those, and not while a retry or retrying compaction is pending. Commands
/// that abort a run silently (`compact`, `new_session`) end it when their response arrives.
package struct RunTracker {
    package enum Phase: Equatable {
        case idle
        case running
        /// `agent_end` seen; waiting to see whether the agent continues.
        case settling(since: ContinuousClock.Instant)
        /// Between `auto_retry_start` and the retry's `agent_start`.
        case retrying
        /// Compaction in progress (threshold after a run, or overflow before a retry).
        case compacting(willRetry: Bool)
    }

    package enum Action: Equatable {
        case none
        case runStarted
        case runFinished
    }

    package var settleWindow: Duration = .milliseconds(400)
    package private(set) var phase: Phase = .idle

    package var isBusy: Bool { phase != .idle }

    /// pi compacts, after a run (threshold) or before it goes on (overflow).
    package var isCompacting: Bool {
        if case .compacting = phase { return true }
        return false
    }

    /// Between `auto_retry_start` and the retry's `agent_start`: pi is not streaming then.
    package var isRetrying: Bool { phase == .retrying }

    /// `agent_end` or a compaction's end seen, and the run not yet over.
    package var isSettling: Bool {
        if case .settling = phase { return true }
        return false
    }

    package mutating func agentStart() -> Action {
        let wasIdle = phase == .idle
        phase = .running
        return wasIdle ? .runStarted : .none
    }

    package mutating func agentEnd(at now: ContinuousClock.Instant) -> Action {
        // A late end of a run already over (one a `compact` response ended): settling now would
        // take the next run's agent_start for a continuation, and that run would go unannounced.
        guard phase != .idle else { return .none }
        phase = .settling(since: now)
        return .none
    }

    package mutating func autoRetryStart() -> Action {
        phase = .retrying
        return .none
    }

    /// `success:false` means retries are exhausted or were cancelled: the run is over.
    package mutating func autoRetryEnd(success: Bool, at now: ContinuousClock.Instant) -> Action {
        if success { return .none }
        return finish()
    }

    package mutating func compactionStart() -> Action {
        let wasIdle = phase == .idle
        phase = .compacting(willRetry: false)
        return wasIdle ? .runStarted : .none
    }

    package mutating func compactionEnd(willRetry: Bool, at now: ContinuousClock.Instant) -> Action {
        if willRetry {
            phase = .compacting(willRetry: true)
            return .none
        }
        phase = .settling(since: now)
        return .none
    }

    /// `compact`, `new_session` or `switch_session` answered: any run was aborted silently.
    package mutating func abortedSilently() -> Action {
        guard phase != .idle else { return .none }
        return finish()
    }

    /// `abort` answered: pi answers it once idle, and nothing continues an aborted run (an abort
    /// also cancels a pending retry, pi-rpc spec §5), so a run settling is over now. A prompt sent
    /// next then starts a run of its own instead of being taken for a continuation.
    package mutating func abortAnswered() -> Action {
        guard case .settling = phase else { return .none }
        return finish()
    }

    /// The child exited.
    package mutating func childExited() -> Action {
        guard phase != .idle else { return .none }
        return finish()
    }

    /// Called on a timer: ends a settled run once the window has passed quietly.
    package mutating func tick(at now: ContinuousClock.Instant) -> Action {
        if case .settling(let since) = phase, now - since >= settleWindow {
            return finish()
        }
        return .none
    }

    private mutating func finish() -> Action {
        phase = .idle
        return .runFinished
    }
}
