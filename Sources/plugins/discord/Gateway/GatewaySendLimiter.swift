/// Discord disconnects a client that sends more than 120 payloads in 60 s. This sliding window
/// keeps a reserve for heartbeats, which must never wait behind presence updates.
struct GatewaySendLimiter: Sendable {
    typealias Instant = ContinuousClock.Instant

    var limit = 120
    var reserveForHeartbeats = 10
    var window: Duration = .seconds(60)
    private(set) var sent: [Instant] = []

    init() {}

    /// nil when the payload may go now (and it is counted); otherwise when to ask again.
    mutating func admit(now: Instant, heartbeat: Bool) -> Instant? {
        sent.removeAll { $0 + window <= now }
        let cap = heartbeat ? limit : limit - reserveForHeartbeats
        if sent.count >= cap, sent.count > 0 {
            return sent[sent.count - cap] + window
        }
        sent.append(now)
        return nil
    }
}
