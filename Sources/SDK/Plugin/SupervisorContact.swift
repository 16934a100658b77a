import Synchronization

/// When this plugin last heard from its supervisor (any message, a ping included; the runtime
/// marks each). A frozen daemon leaves its plugins running, so a plugin that must not act alone
/// (a messenger polling for a federation, the federation's lease) checks this is recent.
public final class SupervisorContact: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    public init() {}

    /// The supervisor spoke just now.
    public func heard(at now: ContinuousClock.Instant = .now) {
        last.withLock { $0 = now }
    }

    public var lastHeard: ContinuousClock.Instant? { last.withLock { $0 } }
}
