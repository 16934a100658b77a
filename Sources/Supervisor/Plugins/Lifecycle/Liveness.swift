/// Whether a running plugin is alive: it answers pings and reads its stdin. A pure state
/// machine: the slot calls `tick` every ping interval with the time and the state of the
/// plugin's stdin, and does what it returns.
package struct Liveness: Sendable {
    package enum Verdict: Sendable, Equatable {
        case fine
        /// Send this ping.
        case ping(id: String)
        /// Kill it; the reason says why.
        case hung(String)
    }

    package let pingTimeout: Duration
    package let stalledInputLimit: Duration
    private var lastPingSent: ContinuousClock.Instant?
    private var lastPong: ContinuousClock.Instant
    /// The last tick that found a backlog being read: a ping waits behind what was queued, and
    /// behind what the pipe still holds once the queue is empty, so its clock starts here.
    private var lastDraining: ContinuousClock.Instant?
    private var pingCount = 0

    package init(now: ContinuousClock.Instant, pingTimeout: Duration, stalledInputLimit: Duration) {
        self.pingTimeout = pingTimeout
        self.stalledInputLimit = stalledInputLimit
        lastPong = now
    }

    /// `stdinStalledFor`: how long the plugin has left more than the limit unread on its stdin,
    /// taking none of it. `stdinDraining`: it has a backlog and is reading it, so a ping sent may
    /// still wait behind it (a replayed outbox read at a chat service's pace).
    package mutating func tick(
        at now: ContinuousClock.Instant, stdinStalledFor: Duration?, queuedBytes: Int, stdinDraining: Bool = false
    ) -> Verdict {
        if let stalled = stdinStalledFor, stalled > stalledInputLimit {
            return .hung("is not reading its stdin (\(queuedBytes) bytes queued for \(stalled.components.seconds) s)")
        }
        if stdinDraining { lastDraining = now }
        if let sent = lastPingSent, lastPong < sent {
            let waitingSince = max(sent, lastDraining ?? sent)
            guard now - waitingSince > pingTimeout, !stdinDraining else { return .fine }
            return .hung("missed pongs for \(pingTimeout.components.seconds) s")
        }
        pingCount += 1
        lastPingSent = now
        return .ping(id: "ping-\(pingCount)")
    }

    package mutating func pong(at now: ContinuousClock.Instant) {
        lastPong = now
    }
}
