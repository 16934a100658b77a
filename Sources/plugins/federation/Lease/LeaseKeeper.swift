import Logging
import PiRelaySDK

/// Keeps one ingress lease: runs `IngressLease` against the store on the real clock, and says
/// when this machine starts or stops owning ingress. It releases a held lease when cancelled,
/// so a clean stop hands over at once.
public struct LeaseKeeper: Sendable {
    /// Ingress for the messenger starts (under `epoch`) or stops (with why).
    public enum Change: Sendable, Equatable {
        case started(epoch: Int64)
        case stopped(reason: String)
    }

    let store: FederationStore
    let lease: String
    let messenger: String
    let machine: String
    let preferred: Bool
    let times: LeaseTimes
    let contact: SupervisorContact
    /// Asks the supervisor for a sign of life just before each claim (and whether the messenger
    /// runs there): a lease renewed only on a fresh answer lapses within `expireAfter` of a
    /// freeze, not `supervisorSilence` later. Nil: the last time it was heard from is enough
    /// (tests of the lease alone).
    let answers: (@Sendable () async -> Bool)?
    /// The name this daemon has joined under now (nil: none); before each attempt, a lease kept
    /// under another daemon's name is let go (`IngressLease.nameLost`). Nil: always `machine`.
    let joinedAs: (@Sendable () -> String?)?
    let logger: Logger

    public init(
        store: FederationStore, lease: String, messenger: String, machine: String, preferred: Bool, times: LeaseTimes,
        contact: SupervisorContact, answers: (@Sendable () async -> Bool)? = nil, joinedAs: (@Sendable () -> String?)? = nil, logger: Logger
    ) {
        self.store = store
        self.lease = lease
        self.messenger = messenger
        self.machine = machine
        self.preferred = preferred
        self.times = times
        self.contact = contact
        self.answers = answers
        self.joinedAs = joinedAs
        self.logger = logger
    }

    /// Whether this daemon is joined under `machine` now (`joinedAs`).
    private var holdsName: Bool { joinedAs.map { $0() == machine } ?? true }

    /// Runs until cancelled; `change` hears each start and stop, in order.
    public func run(_ change: @Sendable (Change) async -> Void) async {
        var state = IngressLease(messenger: messenger, preferred: preferred, times: times, now: .now)
        while !Task.isCancelled {
            if let heard = contact.lastHeard { state.heardFromSupervisor(at: heard) }
            var actions = state.tick(now: .now)
            while !actions.isEmpty {
                let action = actions.removeFirst()
                switch action {
                case .attempt:
                    if !holdsName {
                        actions += state.nameLost(now: .now)
                        continue
                    }
                    if let answers, await !answers() {
                        actions += state.supervisorSilent(now: .now)
                        continue
                    }
                    do {
                        let asked = ContinuousClock.now
                        let answer = try await store.claim(
                            lease: lease, machine: machine, preferred: preferred, expireAfter: times.expireAfter,
                            headStart: times.preferredHeadStart)
                        actions += state.answered(answer, now: .now, asked: asked)
                    } catch {
                        logger.warning("lease \(lease): \(error)")
                        actions += state.failed(now: .now)
                    }
                case .startIngress(let epoch):
                    logger.notice("lease \(lease): this machine owns \(messenger) ingress (epoch \(epoch))")
                    await change(.started(epoch: epoch))
                case .stopIngress(let reason):
                    logger.notice("lease \(lease): this machine stops \(messenger) ingress: \(reason)")
                    await change(.stopped(reason: reason))
                }
            }
            // Wakes for the next attempt or fence, and often enough to see the supervisor speak
            // again after a silence.
            let wake = min(state.nextWake, .now + times.retryAfterFailure)
            do { try await Task.sleep(until: wake) } catch { break }
        }
        if let owned = state.owned {
            await change(.stopped(reason: "stopping"))
            // Not when the name went to another daemon meanwhile: the lease, kept by name, is its.
            guard holdsName else { return }
            // Unstructured on purpose: this task is cancelled, and a query started from it would
            // be too; the release is one short statement, awaited here.
            let release = Task { [store, lease, machine] in try? await store.release(lease: lease, machine: machine, epoch: owned.epoch) }
            await release.value
        }
    }
}
