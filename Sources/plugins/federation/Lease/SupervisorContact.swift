import Synchronization

/// When this plugin last heard from its supervisor (any message, a ping included). A frozen
/// daemon leaves its plugins running; the lease is renewed only while this is recent.
public final class SupervisorContact: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    public init() {}

    /// The supervisor spoke just now.
    public func heard(at now: ContinuousClock.Instant = .now) {
        last.withLock { $0 = now }
    }

    public var lastHeard: ContinuousClock.Instant? { last.withLock { $0 } }
}
