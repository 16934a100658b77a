/// A service client's pacer that the send queue draws on, by the queue's keys (a chat, or a
/// method's bucket): how long a write under a key must wait, and taking its place.
public protocol QueuePacer: HoldingPacer {
    /// Seconds until a write under `key` may go (0 or less: now), taking nothing.
    func wait(key: String, now: Double) -> Double
    /// The same, for a write that must leave `spare` writes under `key` for more urgent ones.
    func wait(key: String, now: Double, keeping spare: Int) -> Double
    /// A write under `key` goes now: it takes its place in the budget.
    mutating func take(key: String, now: Double)
    /// What a restarted plugin must still respect: the holds still running, and whatever else
    /// the service counts over longer than a restart.
    func saved(now: Double) -> Self
}

extension QueuePacer {
    /// A pacer whose buckets have no room to spare keeps nothing back.
    public func wait(key: String, now: Double, keeping spare: Int) -> Double { wait(key: key, now: now) }
}
