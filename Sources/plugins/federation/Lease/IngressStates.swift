import PiRelaySDK
import Synchronization

/// What this machine last told pi-relayd of each shared messenger's ingress: whether it holds
/// the lease, under which epoch (a confirmed position is stored only under it), and what is
/// said again every few seconds so a messenger whose news stop stands by.
final class IngressStates: Sendable {
    private let states = Mutex<[String: IngressChange]>([:])

    /// The epoch of the lease this machine holds on `messenger`'s ingress; nil when it holds none.
    func epoch(of messenger: String) -> Int64? {
        states.withLock { state in state[messenger].flatMap { $0.active ? $0.epoch : nil } }
    }

    func state(of messenger: String) -> IngressChange? { states.withLock { $0[messenger] } }

    func set(_ change: IngressChange) { states.withLock { $0[change.messenger] = change } }
}
