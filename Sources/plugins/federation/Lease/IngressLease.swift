/// One messenger's ingress lease as this machine sees it: a pure state machine. The clock, the
/// database's answers and the supervisor's signs of life go in; what to do comes out (try the
/// lease, start or stop ingress). `LeaseKeeper` does the I/O. Tested on a fake clock.
///
/// The rules ("One bot across several machines"): an owner renews every `renewEvery`; one that
/// has not renewed for `fenceAfter` stops ingress (the lease expires on the database clock at
/// `expireAfter`, later, so nobody else can hold it yet); a contender tries again when the
/// database says the lease is free for it (at its expiry, plus `preferredHeadStart` for a
/// machine that is not the preferred one unless the preferred one let it lapse); nobody tries while its supervisor has been silent for `supervisorSilence`,
/// so a frozen daemon's plugins let the lease go.
public struct IngressLease: Sendable {
    public enum Action: Sendable, Equatable {
        /// Run the claim statement now, then report its answer or its failure.
        case attempt
        /// This machine owns ingress from now on, under `epoch`.
        case startIngress(epoch: Int64)
        /// This machine no longer owns ingress; `reason` is for the log.
        case stopIngress(reason: String)
    }

    public let messenger: String
    public let preferred: Bool
    public let times: LeaseTimes
    /// Set while this machine owns ingress: the epoch and the last successful renewal.
    public private(set) var owned: (epoch: Int64, renewedAt: ContinuousClock.Instant)?
    private var nextAttempt: ContinuousClock.Instant
    private var attempting = false
    private var supervisorHeard: ContinuousClock.Instant?
    /// The last attempt got no answer from the database (not a refusal).
    private var databaseAway = false

    public init(messenger: String, preferred: Bool, times: LeaseTimes, now: ContinuousClock.Instant) {
        self.messenger = messenger
        self.preferred = preferred
        self.times = times
        nextAttempt = now
    }

    /// When `tick` has something to do next.
    public var nextWake: ContinuousClock.Instant {
        guard let owned else { return nextAttempt }
        return min(nextAttempt, owned.renewedAt + times.fenceAfter)
    }

    /// The supervisor answered a ping (or sent anything): the daemon is alive.
    public mutating func heardFromSupervisor(at now: ContinuousClock.Instant) {
        supervisorHeard = now
    }

    /// The clock moved: fence an owner that could not renew, and try the lease when due.
    public mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        // While the database is away, the preferred machine keeps ingress alone (nobody else can
        // take the lease meanwhile); any other owner fences itself.
        if let owned, now - owned.renewedAt >= times.fenceAfter, !(preferred && databaseAway && supervisorAlive(now)) {
            self.owned = nil
            actions.append(.stopIngress(reason: "the lease was not renewed for \(Self.seconds(now - owned.renewedAt))"))
        }
        guard !attempting, now >= nextAttempt else { return actions }
        guard let heard = supervisorHeard, now - heard < times.supervisorSilence else {
            // A silent supervisor: no attempt, so an owner's lease runs out and it fences above.
            nextAttempt = now + times.retryAfterFailure
            return actions
        }
        attempting = true
        actions.append(.attempt)
        return actions
    }

    private func supervisorAlive(_ now: ContinuousClock.Instant) -> Bool {
        supervisorHeard.map { now - $0 < times.supervisorSilence } ?? false
    }

    /// The database's answer to the last `.attempt`, which was sent at `asked` (nil: `now`).
    /// A renewal counts from when it was asked: the lease runs out on the database's clock
    /// from when the statement ran, and an answer may come seconds later; counted from the
    /// answer, the owner fenced itself as late as the moment another machine could take over.
    public mutating func answered(_ answer: LeaseAnswer, now: ContinuousClock.Instant, asked: ContinuousClock.Instant? = nil) -> [Action] {
        attempting = false
        databaseAway = false
        switch answer {
        case .held(let epoch):
            let was = owned?.epoch
            owned = (epoch, asked ?? now)
            // The next renewal counts from the same moment: counted from a late answer, each
            // cycle lost the answer's delay, and at 2.5 s of it the owner fenced itself every time.
            nextAttempt = (asked ?? now) + times.renewEvery
            return was == epoch ? [] : [.startIngress(epoch: epoch)]
        case .heldBy(let owner, _, let freeIn):
            // The database counted the head start this machine owes the preferred one, if any.
            nextAttempt = now + max(freeIn, .milliseconds(100))
            guard owned != nil else { return [] }
            owned = nil
            return [.stopIngress(reason: "\(owner ?? "another machine") holds the lease")]
        }
    }

    /// The supervisor did not answer just before the last `.attempt`, which was not made: no
    /// renewal, so an owner's lease runs out (and it fences, `tick`).
    public mutating func supervisorSilent(now: ContinuousClock.Instant) -> [Action] {
        attempting = false
        supervisorHeard = nil
        nextAttempt = now + times.retryAfterFailure
        return tick(now: now)
    }

    /// This daemon is no longer joined under the machine's name (another daemon took the name,
    /// or a newer plugin moved the schema on), so the lease, kept by name, is not its to renew:
    /// ingress stops at once, and no attempt is made until it is joined again (the keeper asks
    /// each time).
    public mutating func nameLost(now: ContinuousClock.Instant) -> [Action] {
        attempting = false
        nextAttempt = now + times.retryAfterFailure
        guard owned != nil else { return [] }
        owned = nil
        return [.stopIngress(reason: "this daemon no longer holds the machine's name in the federation (pi-relayd status says why)")]
    }

    /// The last `.attempt` failed (the database did not answer): try again soon; an owner keeps
    /// ingress until `fenceAfter` has passed since its last renewal (`tick`), the preferred
    /// machine for as long as the database is away and its supervisor answers.
    public mutating func failed(now: ContinuousClock.Instant) -> [Action] {
        attempting = false
        databaseAway = true
        nextAttempt = now + times.retryAfterFailure
        return tick(now: now)
    }

    private static func seconds(_ duration: Duration) -> String {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return "\(ms / 1000).\(ms % 1000 / 100) s"
    }
}
