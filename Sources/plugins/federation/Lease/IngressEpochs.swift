import Synchronization

/// The ingress leases this machine holds now, by messenger, with their epochs: a confirmed
/// position is stored only under one.
final class IngressEpochs: Sendable {
    private let held = Mutex<[String: Int64]>([:])

    func epoch(of messenger: String) -> Int64? { held.withLock { $0[messenger] } }

    func set(_ messenger: String, _ epoch: Int64?) { held.withLock { $0[messenger] = epoch } }
}
