import SupervisorIO

/// A session's pi child through its life: starting (a new pi) or resuming (pi reopening the
/// session file of an earlier one), running once it answers, exited; and ending once the session
/// is ended for good. A pure state machine: `PiSession` tells it what happened and does the I/O.
/// The state `pi-relayd sessions` shows is worked out here, in one place.
package struct SessionLifecycle: Sendable, Equatable {
    package enum Phase: Sendable, Equatable {
        /// A new pi is starting and has not answered `get_state`.
        case starting
        /// pi is reopening a session file and has not answered `get_state`.
        case resuming
        /// pi answered and is taking commands.
        case running
        /// pi is gone: it exited, failed to start, or the session ended.
        case exited(reason: String)
        /// A terminal session's pi is not attached: it was closed, or its extension is
        /// reconnecting. Only a new attach brings it back.
        case detached
    }

    package private(set) var phase: Phase
    /// Counts launches, so events from an earlier pi are told apart and ignored.
    package private(set) var generation = 0
    /// The session is being ended: no more launches, and its exit is no failure.
    package private(set) var ending = false

    package init(phase: Phase = .starting) {
        self.phase = phase
    }

    /// A pi is being launched; returns its generation.
    package mutating func launch(resuming: Bool) -> Int {
        generation += 1
        phase = resuming ? .resuming : .starting
        return generation
    }

    package func isCurrent(_ launched: Int) -> Bool { launched == generation }

    /// pi answered its first command and has not exited since.
    package var isUp: Bool {
        if case .running = phase { return true }
        return false
    }

    /// pi answered `get_state`.
    package mutating func answered() {
        phase = .running
    }

    /// pi did not come up. When its exit was seen, that already said why.
    package mutating func failedToStart(_ why: String, exitSeen: Bool) {
        if !exitSeen { phase = .exited(reason: why) }
    }

    /// pi exited; `stderr` is what it said last. Returns the reason to show.
    package mutating func exited(_ exit: ChildExit, stderr: [String]) -> String {
        var reason = ending ? "ended" : "pi \(exit)"
        let tail = stderr.suffix(3).joined(separator: " | ")
        if !ending, !tail.isEmpty { reason += ": \(tail)" }
        phase = .exited(reason: reason)
        return reason
    }

    /// An attached terminal pi is taking commands: a new generation, running at once (the
    /// extension answers for a pi that is already up).
    package mutating func attached() -> Int {
        generation += 1
        phase = .running
        return generation
    }

    /// The terminal's connection ended. Returns the reason to show.
    package mutating func detached() -> String {
        phase = .detached
        return ending ? "ended" : "the terminal session detached"
    }

    package mutating func end() {
        ending = true
    }

    /// What the session is doing. An open question outranks a run, since the run waits for it;
    /// a question or a run seen while pi is still starting already shows.
    package func state(busy: Bool, openQuestions: Int) -> SessionState {
        switch phase {
        case .exited(let reason):
            return .exited(reason: reason)
        case .detached:
            return .offline
        case .running, .starting, .resuming:
            if openQuestions > 0 { return .waitingForAnswer }
            if busy { return .busy }
            switch phase {
            case .starting: return .starting
            case .resuming: return .resuming
            default: return .idle
            }
        }
    }
}
