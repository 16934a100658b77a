import Synchronization

/// Deliveries that failed for a reason that may pass and had their tries (`DeliveryRetry`),
/// oldest first: put back in their lanes every `DeliveryRetry.Pace.parkedEvery`, each tried once
/// then, and parked again if it fails again. Kept in memory only: pi-relayd keeps every one of
/// them in its outbox too, and hands it to the next instance.
final class ParkedDeliveries: Sendable {
    private struct State {
        var parked: [(id: String, message: WireMessage)] = []
        /// Put back in a lane and not handled yet: tried once, not on the full schedule.
        var returning: Set<String> = []
    }

    private let state = Mutex(State())

    func park(_ id: String, _ message: WireMessage) {
        state.withLock { state in
            guard !state.parked.contains(where: { $0.id == id }) else { return }
            state.parked.append((id, message))
        }
    }

    /// Every parked delivery, now out of the park and on its way back to its lane.
    func takeAll() -> [WireMessage] {
        state.withLock { state in
            defer { state.parked.removeAll() }
            for entry in state.parked { state.returning.insert(entry.id) }
            return state.parked.map(\.message)
        }
    }

    /// Whether `id` is a parked delivery back in its lane (and no longer is, once asked).
    func isReturning(_ id: String) -> Bool {
        state.withLock { $0.returning.remove(id) != nil }
    }

    /// Puts what is parked back in its lanes (`requeue`) every `every`, until cancelled.
    func run(every: Duration, requeue: (WireMessage) -> Void) async {
        while true {
            do { try await Task.sleep(for: every) } catch { return }
            for message in takeAll() { requeue(message) }
        }
    }
}
