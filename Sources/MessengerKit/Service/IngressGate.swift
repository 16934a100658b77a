import Logging
import PiRelaySDK
import Synchronization

/// Whether this messenger takes inbound traffic now (polls, holds its socket). Alone it always
/// does. When several machines share its bot token through a federation, only the lease's
/// holder does: the welcome says whether this machine starts as it, and `messenger.ingress`
/// brings each change and says it again every few seconds. A messenger stands by on its own when
/// it has not heard from pi-relayd for `supervisorSilence` (a frozen daemon leaves its plugins
/// running, and the lease will pass to another machine), or has not been told it holds the lease
/// for `refreshWithin` (the federation plugin is down, or a change was lost).
public final class IngressGate: Sendable {
    public static let supervisorSilence: Duration = .seconds(10)
    public static let refreshWithin: Duration = .seconds(15)

    /// Nil: no federation manages this messenger.
    private let state: Mutex<(change: IngressChange, at: ContinuousClock.Instant)?>
    private let contact: SupervisorContact

    public init(welcome: IngressChange?, contact: SupervisorContact, now: ContinuousClock.Instant = .now) {
        state = Mutex(welcome.map { ($0, now) })
        self.contact = contact
    }

    /// Whether a federation hands this messenger's ingress to one machine at a time.
    public var managed: Bool { state.withLock { $0 != nil } }

    /// The position a newly active holder starts from, when the federation stored one.
    public var cursor: Int64? { state.withLock { $0?.change.active == true ? $0?.change.cursor : nil } }

    /// Takes a change (or the same said again); true when it changed whether or under which
    /// epoch this machine takes the traffic.
    @discardableResult
    public func apply(_ change: IngressChange, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            defer { state = (change, now) }
            return state?.change.active != change.active || state?.change.epoch != change.epoch
        }
    }

    /// `messenger.ingress`: applies the change, and says so in the log when it changed anything.
    /// True when this machine has just taken the bot: the messenger hands over again what its
    /// journal kept while it stood by (pi-relayd refused it then).
    @discardableResult
    public func take(_ change: IngressChange, logger: Logger) -> Bool {
        guard apply(change) else { return false }
        logger.notice(
            change.active
                ? "this machine takes the bot's updates (lease epoch \(change.epoch.map(String.init) ?? "?"))"
                : "another machine takes the bot's updates: \(change.reason ?? "stand by")")
        return change.active
    }

    /// Why inbound traffic is not to be taken now; nil when it is.
    public func standBy(now: ContinuousClock.Instant = .now) -> String? {
        guard let (change, at) = state.withLock({ $0 }) else { return nil }
        guard change.active else { return change.reason ?? "another machine holds the lease" }
        if now - at >= Self.refreshWithin {
            return "the federation has not confirmed this machine's lease for \(Int((now - at).components.seconds)) s"
        }
        if let heard = contact.lastHeard, now - heard >= Self.supervisorSilence {
            return "pi-relayd has not been heard from for \(Int((now - heard).components.seconds)) s"
        }
        return nil
    }
}
