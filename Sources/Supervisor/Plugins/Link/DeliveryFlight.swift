/// Which of the outbox's deliveries the running instance has been sent, and which one crashes it.
///
/// A delivery in flight when an instance dies goes to the next one. One whose handling crashes
/// the plugin every time would crash every instance, until the crash-loop limit marks the plugin
/// failed and the whole messenger goes quiet. So each delivery counts the crashes it was in
/// flight during. Once one has two, deliveries go one at a time until none that was in flight
/// during a crash is left: a crash then names its delivery. A delivery alone in flight during its
/// second crash, with no request in flight beside it, is poison, and the owner sets it aside.
/// One that stalled (passed over, below) and was in flight during a crash goes last from then
/// on: either it or the one sent after it crashed, and sending the others first lets each be
/// tried alone. Pure bookkeeping on the owner's clock.
package struct DeliveryFlight: Sendable {
    /// How long a delivery sent alone is waited for. A plugin that could not handle one leaves it
    /// unacknowledged for its next instance (`DeliveryRetry`), and it must not hold the rest.
    package let patience: Duration
    /// Sent to the running instance and not acknowledged.
    private var inFlight: Set<String> = []
    /// Crashes each unacknowledged delivery was in flight during (none: absent).
    private var crashes: [String: Int] = [:]
    /// Whether an instance has been welcomed and not ended.
    private var running = false
    /// One at a time: the delivery sent alone, and when.
    private var alone: (id: String, since: ContinuousClock.Instant)?
    /// Sent alone and not acknowledged within `patience`: no longer waited for before the next
    /// goes. It counts the crashes it is in flight during.
    private var passedOver: Set<String> = []
    /// Passed over and in flight during a crash: sent after the others, one at a time.
    private var deferred: Set<String> = []

    package init(patience: Duration = .seconds(60)) {
        self.patience = patience
    }

    /// Whether deliveries go one at a time.
    package var oneAtATime: Bool { crashes.values.contains { $0 >= 2 } }

    /// The crashes `id` was in flight during.
    package func crashes(of id: String) -> Int { crashes[id] ?? 0 }

    /// In flight and waited for.
    private var awaited: Set<String> { inFlight.subtracting(passedOver) }

    /// A new instance is welcomed: what of `waiting` (the outbox, oldest first) it gets now.
    package mutating func welcomed<Entry>(_ waiting: [Entry], id: (Entry) -> String, at now: ContinuousClock.Instant) -> [Entry] {
        running = true
        return release(waiting, id: id, at: now)
    }

    /// A delivery is added while an instance runs: whether it is sent now (else it waits for
    /// its turn: `acked`, `tick`).
    package mutating func mayPass(_ id: String, at now: ContinuousClock.Instant) -> Bool {
        guard running else { return false }
        if oneAtATime {
            guard awaited.isEmpty else { return false }
            alone = (id, now)
        }
        inFlight.insert(id)
        return true
    }

    /// `id` was acknowledged: what of `waiting` (the outbox without it) goes now.
    package mutating func acked<Entry>(
        _ id: String, waiting: [Entry], id key: (Entry) -> String, at now: ContinuousClock.Instant
    ) -> [Entry] {
        inFlight.remove(id)
        passedOver.remove(id)
        deferred.remove(id)
        // Outside one-at-a-time everything was sent as it came: nothing waits for this ack.
        let wasOneAtATime = oneAtATime
        crashes.removeValue(forKey: id)
        if alone?.id == id { alone = nil }
        guard wasOneAtATime, running else { return [] }
        return release(waiting, id: key, at: now)
    }

    /// Time passed: a delivery sent alone and not acknowledged within `patience` is passed over,
    /// and the next goes.
    package mutating func tick<Entry>(waiting: [Entry], id: (Entry) -> String, at now: ContinuousClock.Instant) -> [Entry] {
        // A deferred one (it stalled through a crash before) is waited for four times as long:
        // a poison that crashes a minute or two after it came is then alone when it does.
        guard running, let alone, now - alone.since >= (deferred.contains(alone.id) ? patience * 4 : patience) else { return [] }
        passedOver.insert(alone.id)
        self.alone = nil
        return release(waiting, id: id, at: now)
    }

    /// The instance ended. Returns the poison: the delivery alone in flight during its second
    /// crash, if any; none when requests were in flight beside it (`otherWork`) or a passed-over
    /// one was, as either may have been the cause. What was in flight waits for the next
    /// instance.
    package mutating func instanceEnded(crashed: Bool, otherWork: Bool = false) -> String? {
        let counted = inFlight
        let stalled = inFlight.intersection(passedOver)
        inFlight.removeAll()
        passedOver.removeAll()
        alone = nil
        running = false
        guard crashed else { return nil }
        for id in counted { crashes[id, default: 0] += 1 }
        deferred.formUnion(stalled)
        guard !otherWork, counted.count == 1, let only = counted.first, let count = crashes[only], count >= 2 else { return nil }
        crashes.removeValue(forKey: only)
        return only
    }

    /// `id` left the outbox some other way (set aside): it no longer counts.
    package mutating func forget(_ id: String) {
        inFlight.remove(id)
        passedOver.remove(id)
        deferred.remove(id)
        crashes.removeValue(forKey: id)
    }

    /// Sends what may go: one at a time, the oldest not sent (the deferred last), when nothing is
    /// waited for; else everything not sent yet.
    private mutating func release<Entry>(_ waiting: [Entry], id: (Entry) -> String, at now: ContinuousClock.Instant) -> [Entry] {
        if oneAtATime {
            guard awaited.isEmpty,
                let next = waiting.first(where: { !inFlight.contains(id($0)) && !deferred.contains(id($0)) })
                    ?? waiting.first(where: { !inFlight.contains(id($0)) })
            else { return [] }
            inFlight.insert(id(next))
            alone = (id(next), now)
            return [next]
        }
        var out: [Entry] = []
        for entry in waiting where !inFlight.contains(id(entry)) {
            inFlight.insert(id(entry))
            out.append(entry)
        }
        return out
    }
}
