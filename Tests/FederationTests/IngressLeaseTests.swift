import FederationPlugin
import Testing

/// The ingress lease's rules on a fake clock: renewal, self-fencing, the supervisor's silence,
/// the preferred machine's head start, and a change of epoch.
@Suite struct IngressLeaseTests {
    let start = ContinuousClock.now
    let times = LeaseTimes()

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1000)) }

    func owner(preferred: Bool = true) -> IngressLease {
        var lease = IngressLease(messenger: "telegram", preferred: preferred, times: times, now: at(0))
        lease.heardFromSupervisor(at: at(0))
        #expect(lease.tick(now: at(0)) == [.attempt])
        #expect(lease.answered(.held(epoch: 1), now: at(0)) == [.startIngress(epoch: 1)])
        return lease
    }

    @Test func anOwnerRenewsEveryFiveSecondsAndARenewalStartsNothing() {
        var lease = owner()
        lease.heardFromSupervisor(at: at(4))
        #expect(lease.tick(now: at(4.9)) == [])
        #expect(lease.nextWake == at(5))
        #expect(lease.tick(now: at(5)) == [.attempt])
        #expect(lease.tick(now: at(5.1)) == [], "one attempt at a time")
        #expect(lease.answered(.held(epoch: 1), now: at(5.1)) == [])
        #expect(lease.owned?.epoch == 1)
    }

    @Test func anOwnerThatCannotRenewStopsIngressTenSecondsAfterItsLastRenewal() {
        var lease = owner(preferred: false)
        for second in stride(from: 5.0, through: 9.0, by: 1) {
            lease.heardFromSupervisor(at: at(second))
            let actions = lease.tick(now: at(second))
            #expect(actions == [.attempt], "at \(second) s")
            #expect(lease.failed(now: at(second)) == [], "still within the fence at \(second) s")
        }
        lease.heardFromSupervisor(at: at(9.9))
        #expect(lease.tick(now: at(9.95)) == [])
        let fenced = lease.tick(now: at(10))
        #expect(fenced.first == .stopIngress(reason: "the lease was not renewed for 10.0 s"), "\(fenced)")
        #expect(lease.owned == nil)
    }

    /// "Only the preferred machine keeps ingress alone" while the database is away, as long as
    /// its own supervisor answers; silent too, it fences like any owner.
    @Test func thePreferredOwnerKeepsIngressWhileTheDatabaseIsAway() {
        var lease = owner(preferred: true)
        for second in stride(from: 5.0, through: 14.0, by: 1) {
            lease.heardFromSupervisor(at: at(second))
            #expect(lease.tick(now: at(second)) == [.attempt], "at \(second) s")
            #expect(lease.failed(now: at(second)) == [], "kept at \(second) s")
        }
        #expect(lease.owned?.epoch == 1)
        // The database answers again: the renewal keeps the epoch and starts nothing.
        lease.heardFromSupervisor(at: at(15))
        #expect(lease.tick(now: at(15)) == [.attempt])
        #expect(lease.answered(.held(epoch: 1), now: at(15)) == [])
        // Away again, and then the supervisor silent: fenced ten seconds after the last renewal.
        lease.heardFromSupervisor(at: at(19))
        #expect(lease.tick(now: at(20)) == [.attempt])
        #expect(lease.failed(now: at(20.1)) == [])
        let fenced = lease.tick(now: at(25))
        #expect(fenced.first == .stopIngress(reason: "the lease was not renewed for 10.0 s"), "\(fenced)")
    }

    /// The supervisor did not answer the sign of life asked just before a renewal: no claim, and
    /// the owner fences ten seconds after its last renewal.
    @Test func noAnswerBeforeARenewalMeansNoRenewal() {
        var lease = owner(preferred: true)
        lease.heardFromSupervisor(at: at(5))
        #expect(lease.tick(now: at(5)) == [.attempt])
        #expect(lease.supervisorSilent(now: at(5)) == [])
        lease.heardFromSupervisor(at: at(9))
        #expect(lease.tick(now: at(9)) == [.attempt])
        #expect(lease.supervisorSilent(now: at(9.5)) == [])
        #expect(lease.tick(now: at(10)).first == .stopIngress(reason: "the lease was not renewed for 10.0 s"))
    }

    @Test func aSilentSupervisorMeansNoRenewalSoTheOwnerFences() {
        var lease = owner()
        // The daemon froze at 0 s: its federation plugin stops renewing after 5 s of silence.
        #expect(lease.tick(now: at(5)) == [])
        #expect(lease.tick(now: at(7)) == [])
        #expect(lease.tick(now: at(10)).first == .stopIngress(reason: "the lease was not renewed for 10.0 s"))
        // It speaks again: the next attempt goes out.
        lease.heardFromSupervisor(at: at(11))
        #expect(lease.tick(now: at(11)) == [.attempt])
    }

    /// The database says when the lease is free for each machine (its head start counted):
    /// each tries again then, or a tenth of a second on when it is free already.
    @Test func aContenderTriesAgainWhenTheDatabaseSaysTheLeaseIsFreeForIt() {
        var preferred = IngressLease(messenger: "slack", preferred: true, times: times, now: at(0))
        var other = IngressLease(messenger: "slack", preferred: false, times: times, now: at(0))
        preferred.heardFromSupervisor(at: at(0))
        other.heardFromSupervisor(at: at(0))
        #expect(preferred.tick(now: at(0)) == [.attempt])
        #expect(other.tick(now: at(0)) == [.attempt])
        #expect(preferred.answered(.heldBy(owner: "nas", epoch: 3, freeIn: .seconds(7)), now: at(0)) == [])
        #expect(other.answered(.heldBy(owner: "nas", epoch: 3, freeIn: .seconds(12)), now: at(0)) == [])
        #expect(preferred.nextWake == at(7))
        #expect(other.nextWake == at(12))
        var late = IngressLease(messenger: "slack", preferred: false, times: times, now: at(0))
        late.heardFromSupervisor(at: at(0))
        _ = late.tick(now: at(0))
        _ = late.answered(.heldBy(owner: nil, epoch: 0, freeIn: .seconds(-2)), now: at(0))
        #expect(late.nextWake == at(0) + .milliseconds(100))
    }

    /// A renewal answered late counts from when it was asked: the lease expires on the
    /// database from the statement, so the owner fences 10 s after the ask, not the answer.
    @Test func aLateAnswerCountsFromWhenTheRenewalWasAsked() {
        var lease = owner(preferred: false)
        lease.heardFromSupervisor(at: at(5))
        #expect(lease.tick(now: at(5)) == [.attempt])
        #expect(lease.answered(.held(epoch: 1), now: at(9), asked: at(5)) == [])
        #expect(lease.owned?.renewedAt == at(5))
        #expect(lease.nextWake == at(10), "the next renewal is due 5 s after the ask, within the fence")
        lease.heardFromSupervisor(at: at(14.9))
        _ = lease.tick(now: at(14.9))
        _ = lease.failed(now: at(14.9))
        #expect(lease.tick(now: at(15)).contains { if case .stopIngress = $0 { true } else { false } }, "fenced 10 s after the ask")
    }

    /// Renewals answered 3 s late, one after another, keep ingress: each is asked 5 s after the
    /// one before was asked, well within the 10 s fence.
    @Test func steadyLateAnswersKeepIngress() {
        var lease = owner(preferred: false)
        var asked = 5.0
        for _ in 0..<6 {
            lease.heardFromSupervisor(at: at(asked))
            #expect(lease.tick(now: at(asked)) == [.attempt], "asked at \(asked) s")
            #expect(lease.tick(now: at(asked + 2.9)).isEmpty, "no fence while the answer is on its way")
            #expect(lease.answered(.held(epoch: 1), now: at(asked + 3), asked: at(asked)) == [], "answered at \(asked + 3) s")
            asked += 5
        }
        #expect(lease.owned?.epoch == 1)
    }

    /// A daemon whose machine name another daemon took (the roster's `machineLost`) stops
    /// ingress at its next attempt, without waiting for the fence, and makes no attempt: the
    /// lease is kept by name, so its renewals would succeed for the other daemon's epoch.
    @Test func anOwnerWhoseNameWasTakenStopsAtOnceAndDoesNotAttempt() {
        var lease = owner()
        lease.heardFromSupervisor(at: at(5))
        #expect(lease.tick(now: at(5)) == [.attempt])
        #expect(
            lease.nameLost(now: at(5)) == [
                .stopIngress(reason: "this daemon no longer holds the machine's name in the federation (pi-relayd status says why)")
            ])
        #expect(lease.owned == nil)
        #expect(lease.nameLost(now: at(5.1)) == [], "stopped once")
        lease.heardFromSupervisor(at: at(5.5))
        #expect(lease.tick(now: at(5.5)) == [], "not at once")
        #expect(lease.tick(now: at(6.1)) == [.attempt], "asked again after a short wait, in case the name is back")
    }

    @Test func anOwnerThatFindsAnotherHoldingTheLeaseStopsIngress() {
        var lease = owner()
        lease.heardFromSupervisor(at: at(5))
        #expect(lease.tick(now: at(5)) == [.attempt])
        #expect(
            lease.answered(.heldBy(owner: "desktop", epoch: 2, freeIn: .seconds(15)), now: at(5)) == [
                .stopIngress(reason: "desktop holds the lease")
            ])
        #expect(lease.owned == nil)
    }

    @Test func aLapsedLeaseTakenBackUnderANewEpochStartsIngressAgain() {
        var lease = owner()
        lease.heardFromSupervisor(at: at(5))
        _ = lease.tick(now: at(5))
        #expect(lease.answered(.held(epoch: 2), now: at(5)) == [.startIngress(epoch: 2)])
    }
}
