/// What a session is doing, as `pi-relayd sessions` shows it.
package enum SessionState: Sendable, Equatable {
    case starting
    case resuming
    case idle
    case busy
    case waitingForAnswer
    case exited(reason: String)
    /// A terminal session whose pi is not attached (closed, or reconnecting).
    case offline

    package var name: String {
        switch self {
        case .starting: return "starting"
        case .resuming: return "resuming"
        case .idle: return "idle"
        case .busy: return "busy"
        case .waitingForAnswer: return "waiting-for-answer"
        case .exited: return "exited"
        case .offline: return "offline"
        }
    }
}
