import PiRelaySDK
import Synchronization

/// Whether this messenger takes inbound traffic now (polls, holds its socket). Alone it always
/// does. When several machines share its bot token through a federation, only the lease's
/// holder does: the welcome says whether this machine starts as it, `messenger.ingress` brings
/// each change, and a messenger that has not heard from pi-relayd for `supervisorSilence` stands
/// by on its own (a frozen daemon leaves its plugins running, and the lease will pass to another
/// machine).
public final class IngressGate: Sendable {
    public static let supervisorSilence: Duration = .seconds(10)

    /// Nil: no federation manages this messenger.
    private let state: Mutex<IngressChange?>
    private let contact: SupervisorContact

    public init(welcome: IngressChange?, contact: SupervisorContact) {
        state = Mutex(welcome)
        self.contact = contact
    }

    /// Whether a federation hands this messenger's ingress to one machine at a time.
    public var managed: Bool { state.withLock { $0 != nil } }

    /// The position a newly active holder starts from, when the federation stored one.
    public var cursor: Int64? { state.withLock { $0?.active == true ? $0?.cursor : nil } }

    public func apply(_ change: IngressChange) {
        state.withLock { $0 = change }
    }

    /// Why inbound traffic is not to be taken now; nil when it is.
    public func standBy(now: ContinuousClock.Instant = .now) -> String? {
        guard let change = state.withLock({ $0 }) else { return nil }
        guard change.active else { return change.reason ?? "another machine holds the lease" }
        if let heard = contact.lastHeard, now - heard >= Self.supervisorSilence {
            return "pi-relayd has not been heard from for \(Int((now - heard).components.seconds)) s"
        }
        return nil
    }
}
