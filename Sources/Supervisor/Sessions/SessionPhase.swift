/// Where a session's pi child is in its life. The state `pi-relayd sessions` shows is worked out
/// from it in one place (`state(busy:openQuestions:)`), not set by hand wherever something happens.
enum SessionPhase: Sendable, Equatable {
    /// pi is being started (or resumed from its session file) and has not answered `get_state`.
    case starting
    /// pi answered and is taking commands.
    case running
    /// pi is gone: it exited, failed to start, or the session ended.
    case exited(reason: String)

    /// What the session is doing. An open question outranks a run, since the run waits for it;
    /// a question or a run seen while pi is still starting already shows.
    func state(busy: Bool, openQuestions: Int) -> SessionState {
        switch self {
        case .exited(let reason):
            return .exited(reason: reason)
        case .running, .starting:
            if openQuestions > 0 { return .waitingForAnswer }
            if busy { return .busy }
            return self == .starting ? .starting : .idle
        }
    }
}
