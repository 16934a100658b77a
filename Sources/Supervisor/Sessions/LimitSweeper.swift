import FoundationEssentials

/// Decides what `sessions.limits` does to each session at a sweep (issue 17 point 10): an idle
/// session ends or starts a new conversation, a run past the maximum is aborted. Pure: it is
/// given the sessions and the time and returns actions, remembering what it already did so an
/// action is not repeated while it takes effect. Its input is what sessions save (their last
/// activity), so after a daemon restart the first sweep finds the sessions idle past their time.
package struct LimitSweeper {
    /// What the sweeper needs of a session.
    package struct Snapshot: Sendable, Equatable {
        package var id: String
        /// A terminal session is the user's own pi: limits leave it alone.
        package var terminal: Bool
        package var lastActivity: Date
        /// The run going on, and since when.
        package var runID: String?
        package var runStartedAt: Date?
        /// A question is open, or a run goes on: not idle.
        package var busy: Bool
        /// The conversation was started afresh for idleness and nothing happened since.
        package var fresh: Bool
    }

    package enum Action: Sendable, Equatable {
        /// Idle past `idleSeconds` with `onIdle: end`.
        case end(session: String, idle: Int)
        /// Idle past `idleSeconds` with `onIdle: newConversation`.
        case newConversation(session: String, idle: Int)
        /// Running past `maxRunSeconds`.
        case abortRun(session: String, runID: String, ran: Int)

        /// The session it is for.
        package var session: String {
            switch self {
            case .end(let id, _), .newConversation(let id, _), .abortRun(let id, _, _): return id
            }
        }
    }

    package let limits: SessionLimits
    /// The last activity each idle action was taken for, by session.
    private var idleHandled: [String: Date] = [:]
    /// Runs already aborted.
    private var runsAborted: Set<String> = []

    package init(limits: SessionLimits) {
        self.limits = limits
    }

    package mutating func sweep(_ sessions: [Snapshot], now: Date) -> [Action] {
        var actions: [Action] = []
        let present = Set(sessions.map(\.id))
        idleHandled = idleHandled.filter { present.contains($0.key) }
        runsAborted = runsAborted.filter { run in sessions.contains { $0.runID == run } }
        for session in sessions where !session.terminal {
            if limits.maxRunSeconds > 0, let run = session.runID, let started = session.runStartedAt, !runsAborted.contains(run) {
                let ran = Int(now.timeIntervalSince(started))
                if ran >= limits.maxRunSeconds {
                    runsAborted.insert(run)
                    actions.append(.abortRun(session: session.id, runID: run, ran: ran))
                }
            }
            guard limits.idleSeconds > 0, !session.busy, session.runID == nil, idleHandled[session.id] != session.lastActivity else { continue }
            let idle = Int(now.timeIntervalSince(session.lastActivity))
            guard idle >= limits.idleSeconds else { continue }
            switch limits.onIdle {
            case .end:
                idleHandled[session.id] = session.lastActivity
                actions.append(.end(session: session.id, idle: idle))
            case .newConversation where !session.fresh:
                idleHandled[session.id] = session.lastActivity
                actions.append(.newConversation(session: session.id, idle: idle))
            case .newConversation:
                continue
            }
        }
        return actions
    }
}
