import Testing

@testable import Supervisor

/// The restart state machine, on a clock the tests move by hand.
@Suite struct RestartPolicyTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    /// Starts at `startedAt`, crashes at `crashedAt`, returns the wait before the restart.
    func crash(_ policy: inout RestartPolicy, startedAt: Double, crashedAt: Double, random: Double = 0.5) -> Duration? {
        policy.started(at: at(startedAt))
        if case .restart(let wait) = policy.exited(.crash, at: at(crashedAt), random: random) { return wait }
        return nil
    }

    @Test func aFirstCrashRestartsAtOnceAndBackoffDoublesFromTheSecond() {
        var policy = RestartPolicy(options: .init(crashLoopCount: 100))
        let waits = (0..<6).map { i in crash(&policy, startedAt: Double(i), crashedAt: Double(i) + 0.1) }
        #expect(waits == [.zero, .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8)])
    }

    @Test func immediateRestartsSetsHowManyCrashesInARowSkipTheWait() {
        var none = RestartPolicy(options: .init(immediateRestarts: 0, crashLoopCount: 100))
        let noneWaits = (0..<3).map { i in crash(&none, startedAt: Double(i), crashedAt: Double(i) + 0.1) }
        #expect(noneWaits == [.milliseconds(500), .seconds(1), .seconds(2)])
        var two = RestartPolicy(options: .init(immediateRestarts: 2, crashLoopCount: 100))
        let twoWaits = (0..<4).map { i in crash(&two, startedAt: Double(i), crashedAt: Double(i) + 0.1) }
        #expect(twoWaits == [.zero, .zero, .milliseconds(500), .seconds(1)])
    }

    @Test func aCrashAfterAHealthyRunRestartsAtOnceAgain() {
        var policy = RestartPolicy(options: .init(crashLoopCount: 100, healthyReset: .seconds(60)))
        #expect(crash(&policy, startedAt: 0, crashedAt: 1) == .zero)
        #expect(crash(&policy, startedAt: 1, crashedAt: 2) == .milliseconds(500))
        #expect(crash(&policy, startedAt: 2, crashedAt: 100) == .zero, "ran 98 s: healthy, so a first crash again")
        #expect(crash(&policy, startedAt: 100, crashedAt: 101) == .milliseconds(500))
    }

    /// After a long healthy run, instances that die before their hello back off: the healthy
    /// run was another instance's.
    @Test func crashesBeforeAHelloBackOffAfterAHealthyRun() {
        var policy = RestartPolicy(options: .init(crashLoopCount: 100))
        #expect(crash(&policy, startedAt: 0, crashedAt: 100) == .zero)
        var waits: [Duration] = []
        for crashedAt in [100.1, 100.2, 100.3] {
            if case .restart(let wait) = policy.exited(.crash, at: at(crashedAt), random: 0.5) { waits.append(wait) }
        }
        #expect(waits == [.milliseconds(500), .seconds(1), .seconds(2)])
    }

    @Test func immediateRestartsStillEndInACrashLoop() {
        var policy = RestartPolicy(options: .init(crashLoopCount: 3, crashLoopWindow: .seconds(180), healthyReset: .seconds(60)))
        #expect(crash(&policy, startedAt: 0, crashedAt: 61) == .zero)
        #expect(crash(&policy, startedAt: 61, crashedAt: 122) == .zero)
        policy.started(at: at(122))
        #expect(
            policy.exited(.crash, at: at(183), random: 0.5) == .markFailed(reason: "crash loop: 3 crashes within 180 s"),
            "each crash after a healthy minute restarts at once, but three in the window are a loop")
    }

    @Test func backoffStopsAtTheCap() {
        var policy = RestartPolicy(options: .init(crashLoopCount: 1000, crashLoopWindow: .seconds(1)))
        // Far enough apart that the crash-loop window never holds two, close enough to stay unhealthy.
        let waits = (0..<40).map { i in crash(&policy, startedAt: Double(i) * 10, crashedAt: Double(i) * 10 + 5) }
        #expect(waits[6] == .seconds(16))
        #expect(waits[7] == .seconds(30), "32 s is capped")
        #expect(waits.dropFirst(7).allSatisfy { $0 == .seconds(30) }, "no overflow after many crashes: \(waits)")
    }

    @Test(arguments: [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999_999])
    func jitterStaysWithinTwentyPercent(_ random: Double) {
        var policy = RestartPolicy(options: .init(crashLoopCount: 100))
        #expect(crash(&policy, startedAt: 0, crashedAt: 0.1, random: random) == .zero, "no wait, so nothing to jitter")
        for i in 0..<4 {
            let base = Duration.milliseconds(500 << i)
            let wait = crash(&policy, startedAt: Double(i + 1), crashedAt: Double(i + 1) + 0.1, random: random)
            let expected = base * (1 + 0.2 * (2 * random - 1))
            #expect(wait.map { abs(($0 - expected) / .milliseconds(1)) < 0.01 } == true, "\(String(describing: wait)) vs \(expected)")
            #expect(wait.map { $0 >= base * 0.8 && $0 <= base * 1.2 } == true)
        }
    }

    @Test func jitterExtremesAreEightyAndHundredTwentyPercent() {
        var low = RestartPolicy(), high = RestartPolicy()
        _ = crash(&low, startedAt: 0, crashedAt: 1, random: 0)
        _ = crash(&high, startedAt: 0, crashedAt: 1, random: 0.999_999_999)
        #expect(crash(&low, startedAt: 1, crashedAt: 2, random: 0) == .milliseconds(400))
        let top = crash(&high, startedAt: 1, crashedAt: 2, random: 0.999_999_999)
        #expect(top.map { $0 > .milliseconds(599) && $0 <= .milliseconds(600) } == true, "\(String(describing: top))")
    }

    @Test func aHealthyRunResetsTheBackoff() {
        var policy = RestartPolicy(options: .init(crashLoopCount: 100, healthyReset: .seconds(60)))
        _ = crash(&policy, startedAt: 0, crashedAt: 1)
        _ = crash(&policy, startedAt: 2, crashedAt: 3)
        #expect(crash(&policy, startedAt: 4, crashedAt: 5) == .seconds(1))
        // 59.9 s up is not yet healthy: the doubling goes on.
        #expect(crash(&policy, startedAt: 10, crashedAt: 69.9) == .seconds(2))
        // 60 s up is: a first crash again, then the initial wait.
        #expect(crash(&policy, startedAt: 100, crashedAt: 160) == .zero)
        #expect(crash(&policy, startedAt: 161, crashedAt: 162) == .milliseconds(500))
    }

    @Test func fiveCrashesWithinTheWindowMarkThePluginFailed() {
        var policy = RestartPolicy()
        for i in 0..<4 {
            #expect(crash(&policy, startedAt: Double(i) * 30, crashedAt: Double(i) * 30 + 1) != nil, "crash \(i + 1) restarts")
        }
        policy.started(at: at(170))
        let action = policy.exited(.crash, at: at(175), random: 0.5)
        #expect(action == .markFailed(reason: "crash loop: 5 crashes within 180 s"))
    }

    @Test func crashesSpreadBeyondTheWindowNeverFail() {
        var policy = RestartPolicy()
        // One crash every 50 s: never five within 180 s.
        for i in 0..<20 {
            #expect(crash(&policy, startedAt: Double(i) * 50, crashedAt: Double(i) * 50 + 1) != nil, "crash \(i + 1)")
        }
    }

    @Test func rearmingForgetsEarlierCrashes() {
        var policy = RestartPolicy()
        for i in 0..<4 { _ = crash(&policy, startedAt: Double(i), crashedAt: Double(i) + 0.5) }
        policy.rearm()
        #expect(crash(&policy, startedAt: 10, crashedAt: 11) == .zero, "a first crash again: restarted at once")
        for i in 0..<3 {
            #expect(crash(&policy, startedAt: 12 + Double(i), crashedAt: 12.5 + Double(i)) != nil, "a fresh window")
        }
        policy.started(at: at(20))
        #expect(policy.exited(.crash, at: at(21), random: 0.5) == .markFailed(reason: "crash loop: 5 crashes within 180 s"))
    }

    @Test func otherExitsAreNotCrashes() {
        var policy = RestartPolicy(options: .init(crashLoopCount: 1))
        policy.started(at: at(0))
        #expect(policy.exited(.notConfigured, at: at(1), random: 0.5) == .markNotConfigured)
        #expect(policy.exited(.requested, at: at(2), random: 0.5) == .stop)
        #expect(policy.exited(.incompatible, at: at(3), random: 0.5) == .markFailed(reason: "incompatible protocol"))
        // None of them counted towards the crash loop: with a limit of one, a counted exit would fail at once.
        #expect(policy.crashes.isEmpty)
        #expect(policy.consecutiveCrashes == 0)
    }
}
