/// Heartbeat bookkeeping for one connection, pure: the first beat is jittered, and a beat that
/// finds the previous one unacknowledged means the connection is a zombie.
struct HeartbeatTracker: Sendable {
    typealias Instant = ContinuousClock.Instant

    enum Beat: Equatable, Sendable {
        case send
        /// No ACK since the last heartbeat: close with a non-1000 code and resume.
        case zombie
    }

    let interval: Duration
    private(set) var awaitingAck = false
    private(set) var lastSent: Instant?
    private(set) var latency: Duration?

    init(interval: Duration) {
        self.interval = interval
    }

    /// The delay before the first heartbeat: `interval × jitter`, jitter in [0, 1), so a fleet of
    /// reconnecting clients does not beat in step.
    static func firstDelay(interval: Duration, jitter: Double) -> Duration {
        interval * min(max(jitter, 0), 0.999)
    }

    /// A scheduled beat is due.
    mutating func beat(now: Instant) -> Beat {
        if awaitingAck { return .zombie }
        awaitingAck = true
        lastSent = now
        return .send
    }

    /// Discord asked for a heartbeat (op 1): sent at once, and it does not count as a missed ACK.
    mutating func requested(now: Instant) {
        awaitingAck = true
        lastSent = now
    }

    mutating func acked(now: Instant) {
        awaitingAck = false
        if let lastSent { latency = now - lastSent }
    }
}
