/// Wrong pairing links, counted for the whole dashboard: at most `limit` a minute, whoever sends
/// them, so guessing a code costs minutes per ten tries (pi-relayd voids a code after five). Pure:
/// the caller passes the time.
struct WrongCodes: Sendable {
    static let limit = 10
    static let window: Duration = .seconds(60)

    private var failures: [ContinuousClock.Instant] = []
    /// Tries being checked, each counted as wrong until its answer: tries sent side by side
    /// cannot all pass before the first failure is counted.
    private var checking = 0

    /// Whether another try may be checked now.
    func allows(now: ContinuousClock.Instant) -> Bool {
        failures.count { now - $0 < Self.window } + checking < Self.limit
    }

    /// Takes a place for a try to be checked now; false when there is none.
    mutating func begin(now: ContinuousClock.Instant) -> Bool {
        guard allows(now: now) else { return false }
        checking += 1
        return true
    }

    /// The answer to a try `begin` let through.
    mutating func end(wrong: Bool, now: ContinuousClock.Instant) {
        checking -= 1
        if wrong { failed(now: now) }
    }

    /// A try that was wrong.
    mutating func failed(now: ContinuousClock.Instant) {
        failures.removeAll { now - $0 >= Self.window }
        failures.append(now)
    }

    /// How long until the oldest failure in the window leaves it (for Retry-After).
    func retryAfter(now: ContinuousClock.Instant) -> Duration {
        guard let oldest = failures.first(where: { now - $0 < Self.window }) else { return .zero }
        return Self.window - (now - oldest)
    }
}
