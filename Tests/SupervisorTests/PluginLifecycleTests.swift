import PiRelaySDK
import Testing

@testable import Supervisor

/// The plugin slot's pure state machines, on a clock the tests move by hand.
@Suite struct PluginLifecycleTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    @Test func phasesOfAHealthyInstance() {
        var lifecycle = PluginLifecycle(options: .init())
        #expect(lifecycle.state == .starting)
        lifecycle.spawning()
        lifecycle.helloAccepted(at: at(0))
        #expect(lifecycle.state == .handshaking)
        lifecycle.welcomed()
        #expect(lifecycle.state == .running)
        let mustShutDown = lifecycle.stop(instanceRunning: true)
        #expect(mustShutDown)
        #expect(lifecycle.state == .stopping)
        let next = lifecycle.instanceEnded(.requested, why: nil, name: "p", at: at(1), random: 0.5)
        #expect(next == .stop)
    }

    @Test func crashesRestartThenBackOffThenFail() {
        var lifecycle = PluginLifecycle(options: .init(crashLoopCount: 3))
        var nexts: [PluginLifecycle.Next] = []
        for second in 0..<3 {
            lifecycle.spawning()
            lifecycle.helloAccepted(at: at(Double(second)))
            lifecycle.welcomed()
            nexts.append(lifecycle.instanceEnded(.crash, why: "signal 9", name: "p", at: at(Double(second) + 0.1), random: 0.5))
        }
        #expect(nexts[0] == .restart(after: .zero))
        #expect(nexts[1] == .restart(after: .milliseconds(500)))
        guard case .park(let error) = nexts[2] else { Issue.record("a crash loop parks the plugin"); return }
        #expect(error.code == .unavailable)
        #expect(lifecycle.state == .failed && lifecycle.isParked)
        #expect(lifecycle.reason?.contains("crash loop") == true && lifecycle.reason?.contains("signal 9") == true)
        #expect(lifecycle.restarts == 2)
        let rearmed = lifecycle.restart()
        #expect(rearmed == .wake)
        #expect(lifecycle.state == .starting && !lifecycle.isParked && lifecycle.reason == nil)
    }

    @Test func notConfiguredParksWithTheReason() {
        var lifecycle = PluginLifecycle(options: .init())
        lifecycle.spawning()
        let next = lifecycle.instanceEnded(.notConfigured, why: "no DISCORD_BOT_TOKEN", name: "discord", at: at(1), random: 0.5)
        guard case .park = next else { Issue.record("not configured parks"); return }
        #expect(lifecycle.state == .notConfigured && lifecycle.reason == "no DISCORD_BOT_TOKEN")
    }

    @Test func aRestartOfARunningPluginRespawnsWithoutCountingACrash() {
        var lifecycle = PluginLifecycle(options: .init())
        lifecycle.spawning()
        lifecycle.helloAccepted(at: at(0))
        lifecycle.welcomed()
        let restart = lifecycle.restart()
        #expect(restart == .stopInstance)
        #expect(lifecycle.endWasRequested)
        let next = lifecycle.instanceEnded(.requested, why: nil, name: "p", at: at(1), random: 0.5)
        #expect(next == .respawn)
        #expect(lifecycle.restarts == 0 && !lifecycle.endWasRequested)
    }

    @Test func livenessPingsWaitsForThePongAndCallsAMissedOneAHang() {
        var liveness = Liveness(now: at(0), pingTimeout: .seconds(10), stalledInputLimit: .seconds(10))
        let verdict1 = liveness.tick(at: at(5), stdinStalledFor: nil, queuedBytes: 0)
        #expect(verdict1 == .ping(id: "ping-1"))
        let verdict2 = liveness.tick(at: at(10), stdinStalledFor: nil, queuedBytes: 0)
        #expect(verdict2 == .fine)
        liveness.pong(at: at(10.5))
        let verdict3 = liveness.tick(at: at(15), stdinStalledFor: nil, queuedBytes: 0)
        #expect(verdict3 == .ping(id: "ping-2"))
        let verdict4 = liveness.tick(at: at(25.5), stdinStalledFor: nil, queuedBytes: 0)
        #expect(verdict4 == .hung("missed pongs for 10 s"))
    }

    /// A ping sent behind a backlog waits for it: not a hang while the plugin reads it, nor
    /// while it reads what the pipe still holds once the daemon's queue is empty. Its clock
    /// starts at the last tick that found the backlog being read.
    @Test func aPingBehindABacklogIsTimedFromTheEndOfTheBacklog() {
        var liveness = Liveness(now: at(0), pingTimeout: .seconds(4), stalledInputLimit: .seconds(10))
        #expect(liveness.tick(at: at(1), stdinStalledFor: nil, queuedBytes: 2 << 20, stdinDraining: true) == .ping(id: "ping-1"))
        #expect(liveness.tick(at: at(9), stdinStalledFor: nil, queuedBytes: 1 << 20, stdinDraining: true) == .fine)
        // The queue is empty now; the pipe still holds the last deliveries, then the ping.
        #expect(liveness.tick(at: at(10), stdinStalledFor: nil, queuedBytes: 0) == .fine)
        #expect(liveness.tick(at: at(12.9), stdinStalledFor: nil, queuedBytes: 0) == .fine)
        #expect(liveness.tick(at: at(13.5), stdinStalledFor: nil, queuedBytes: 0) == .hung("missed pongs for 4 s"))
    }

    @Test func livenessCallsAStalledStdinAHang() {
        var liveness = Liveness(now: at(0), pingTimeout: .seconds(10), stalledInputLimit: .seconds(10))
        let verdict5 = liveness.tick(at: at(5), stdinStalledFor: .seconds(9), queuedBytes: 2 << 20)
        #expect(verdict5 == .ping(id: "ping-1"))
        let stalled = liveness.tick(at: at(12), stdinStalledFor: .seconds(11), queuedBytes: 2 << 20)
        guard case .hung(let why) = stalled else {
            Issue.record("a stalled stdin is a hang")
            return
        }
        #expect(why.contains("not reading its stdin"))
    }

    @Test func instanceEndsAreClassified() {
        #expect(
            InstanceEnd.of(.init(exit: .exited(78), stderrTail: ["no token"]))
                == InstanceEnd(exit: .notConfigured, reason: "no token", crashed: false)
        )
        // The marked line says why, whatever another task logged after it.
        let marked = InstanceEnd.of(
            .init(exit: .exited(78), stderrTail: ["error not configured: token refused", "notice a reply is kept for the next start"]))
        #expect(marked.reason == "error not configured: token refused")
        #expect(InstanceEnd.of(.init(exit: .exited(0), handshaken: true, requested: true)).exit == .requested)
        #expect(InstanceEnd.of(.init(exit: .exited(0), handshaken: true, requested: true)).crashed == false)
        let killed = InstanceEnd.of(.init(exit: .signaled(9), handshaken: true, killReason: "hung: missed pongs", stderrTail: ["a", "b"]))
        #expect(killed.exit == .crash && killed.reason?.hasPrefix("hung: missed pongs") == true && killed.reason?.hasSuffix("stderr: a | b") == true)
        #expect(killed.crashed, "a hang the slot killed blames what was in flight")
        // A kill from outside (kill -9, the OOM killer) blames nothing in flight; a trap does.
        let outside = [InstanceEnd.of(.init(exit: .signaled(9), handshaken: true)), InstanceEnd.of(.init(exit: .signaled(15), handshaken: true))]
        #expect(outside.allSatisfy { $0.exit == .crash && !$0.crashed })
        #expect(InstanceEnd.of(.init(exit: .signaled(4), handshaken: true)).crashed)
        #expect(InstanceEnd.of(.init(exit: .exited(3), handshaken: true)).crashed)
        #expect(InstanceEnd.of(.init(exit: .exited(1))).reason == "exited before its hello (exited with status 1)")
        #expect(InstanceEnd.of(.init(exit: .exited(2), incompatible: true)).exit == .incompatible)
        #expect(InstanceEnd.of(.init(exit: .spawnFailed("no such file"))).reason == "no such file")
    }

    @Test func helloIsJudgedOnce() throws {
        let hello = Hello(name: "p", version: "1", roles: ["formatter"])
        #expect(HelloCheck(first: .message(.hello(hello))) == .accepted(hello))
        var old = hello
        old.protocol = 2
        guard case .incompatible(_, let goodbye) = HelloCheck(first: .message(.hello(old))) else { Issue.record("protocol 2"); return }
        #expect(goodbye == "unsupported protocol 2; this pi-relayd speaks 1")
        guard case .rejected(let why) = HelloCheck(first: .malformed(preview: "Starting up…", error: "not JSON")) else {
            Issue.record("junk first line")
            return
        }
        #expect(why == "expected a hello as the first line, got: Starting up…")
        guard case .rejected = HelloCheck(first: .message(.pong(id: "1"))) else { Issue.record("a pong is no hello"); return }
    }
}

/// Holds a `PendingRequests` the way a slot does, so its entries have real continuations.
private actor PendingTable {
    var pending = PendingRequests(idPrefix: "t")

    func request(_ method: MethodName = .formatFinal) async throws -> JSONValue {
        let id = pending.nextID()
        return try await withCheckedThrowingContinuation { continuation in
            pending.add(id, PendingRequests.Entry(method: method.rawValue, params: [:], continuation: continuation))
        }
    }

    var count: Int { pending.count }
    func send(to instance: Int) -> [String] { pending.unsent(to: instance).map(\.id) }

    /// Ends `instance`; poison and requests sent once are failed as the slot does. Returns how
    /// many were poison.
    func end(_ instance: Int, crashed: Bool) -> Int {
        let ended = pending.instanceEnded(instance, crashed: crashed)
        for entry in ended.poison { entry.continuation.resume(throwing: RemoteError(code: .poison, message: entry.method)) }
        for entry in ended.unsure { entry.continuation.resume(throwing: RemoteError(code: .unavailable, message: entry.method)) }
        return ended.poison.count
    }

    func answer(_ id: String) {
        pending.remove(id)?.continuation.resume(returning: "done")
    }
}

/// Each test waits for a request in a loop: a regression that never files it fails at the time
/// limit instead of hanging the run.
@Suite(.timeLimit(.minutes(1))) struct PendingRequestsTests {
    @Test func aRequestInFlightDuringTwoCrashesIsPoisonAndOneCrashIsNot() async throws {
        let table = PendingTable()
        async let answer = table.request()
        while await table.count == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(await table.send(to: 1) == ["t1"])
        #expect(await table.end(1, crashed: true) == 0)
        #expect(await table.send(to: 2) == ["t1"])
        #expect(await table.end(2, crashed: true) == 1)
        do {
            _ = try await answer
            Issue.record("poison must fail")
        } catch let error as RemoteError {
            #expect(error.code == .poison)
        }
    }

    /// A forwarded request may have run on the other machine by the time the federation plugin
    /// ended, crashed or stopped: it fails, and the next instance never gets it (which would run
    /// it a second time there).
    /// A forwarded command may have run on the other machine, a thread may have been opened by
    /// the platform: neither goes to the next instance.
    @Test(arguments: [MethodName.federationForward, .chatThread])
    func aRequestSentOnceFailsWhenItsInstanceEndsAndIsNotSentAgain(method: MethodName) async throws {
        for crashed in [true, false] {
            let table = PendingTable()
            async let forwarded = table.request(method)
            while await table.count < 1 { try await Task.sleep(for: .milliseconds(1)) }
            async let formatted = table.request()
            while await table.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
            #expect(await table.send(to: 1).sorted() == ["t1", "t2"])
            #expect(await table.end(1, crashed: crashed) == 0)
            #expect(await table.send(to: 2) == ["t2"], "only the other request waits for the next instance")
            do {
                _ = try await forwarded
                Issue.record("a request sent once must fail")
            } catch let error as RemoteError {
                #expect(error.code == .unavailable)
            }
            await table.answer("t2")
            #expect(try await formatted == "done")
        }
    }

    @Test func aRequestedStopDoesNotCountAsACrash() async throws {
        let table = PendingTable()
        async let answer = table.request()
        while await table.count == 0 { try await Task.sleep(for: .milliseconds(1)) }
        for instance in 1...3 {
            #expect(await table.send(to: instance) == ["t1"])
            #expect(await table.end(instance, crashed: false) == 0)
        }
        #expect(await table.send(to: 4) == ["t1"])
        await table.answer("t1")
        #expect(try await answer == "done")
    }
}
