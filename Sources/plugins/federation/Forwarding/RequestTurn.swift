import Synchronization

/// A taken request's turn in its chat's lane, against the take limit: whichever comes first,
/// its start or the limit, decides. A request still waiting at the limit is answered "not run"
/// then, while its sender still waits for the answer, and never runs when its turn comes.
final class RequestTurn: Sendable {
    private enum Outcome { case started, expired }
    private let outcome = Mutex<Outcome?>(nil)

    /// True when the request may run: the limit has not passed first.
    func start() -> Bool { decide(.started) }

    /// True when the request is refused now: it has not started.
    func expire() -> Bool { decide(.expired) }

    private func decide(_ wanted: Outcome) -> Bool {
        outcome.withLock { outcome in
            if outcome == nil { outcome = wanted }
            return outcome == wanted
        }
    }
}
