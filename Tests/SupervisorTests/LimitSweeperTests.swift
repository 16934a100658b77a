import Foundation
import Testing

@testable import Supervisor

/// Issue 17 point 10: the sweeper's decisions over a fake clock.
@Suite struct LimitSweeperTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func idle(_ id: String, since seconds: Double, terminal: Bool = false, fresh: Bool = false) -> LimitSweeper.Snapshot {
        LimitSweeper.Snapshot(
            id: id, terminal: terminal, lastActivity: start.addingTimeInterval(seconds), runID: nil, runStartedAt: nil, busy: false, fresh: fresh)
    }

    static func running(_ id: String, run: String, since seconds: Double) -> LimitSweeper.Snapshot {
        LimitSweeper.Snapshot(
            id: id, terminal: false, lastActivity: start.addingTimeInterval(seconds), runID: run,
            runStartedAt: start.addingTimeInterval(seconds), busy: true, fresh: false)
    }

    @Test func anIdleSessionEndsOnceItsTimeIsUp() {
        var sweeper = LimitSweeper(limits: SessionLimits(idleSeconds: 60, onIdle: .end))
        #expect(sweeper.sweep([Self.idle("a", since: 0)], now: Self.start.addingTimeInterval(59)).isEmpty)
        #expect(sweeper.sweep([Self.idle("a", since: 0)], now: Self.start.addingTimeInterval(61)) == [.end(session: "a", idle: 61)])
        #expect(sweeper.sweep([Self.idle("a", since: 0)], now: Self.start.addingTimeInterval(90)).isEmpty, "not twice while it ends")
    }

    @Test func newActivityRestartsTheClock() {
        var sweeper = LimitSweeper(limits: SessionLimits(idleSeconds: 60, onIdle: .newConversation))
        #expect(sweeper.sweep([Self.idle("a", since: 0)], now: Self.start.addingTimeInterval(70)) == [.newConversation(session: "a", idle: 70)])
        // The new conversation is fresh: it is not started afresh again while nothing happens.
        #expect(sweeper.sweep([Self.idle("a", since: 70, fresh: true)], now: Self.start.addingTimeInterval(200)).isEmpty)
        // Used again, then idle again: a new conversation again.
        #expect(sweeper.sweep([Self.idle("a", since: 300)], now: Self.start.addingTimeInterval(330)).isEmpty)
        #expect(sweeper.sweep([Self.idle("a", since: 300)], now: Self.start.addingTimeInterval(361)) == [.newConversation(session: "a", idle: 61)])
    }

    @Test func aRunPastTheMaximumIsAbortedOnceAndABusySessionIsNotIdle() {
        var sweeper = LimitSweeper(limits: SessionLimits(idleSeconds: 10, maxRunSeconds: 30))
        let run = Self.running("a", run: "a-r1", since: 0)
        #expect(sweeper.sweep([run], now: Self.start.addingTimeInterval(29)).isEmpty, "busy, and within its time")
        #expect(sweeper.sweep([run], now: Self.start.addingTimeInterval(31)) == [.abortRun(session: "a", runID: "a-r1", ran: 31)])
        #expect(sweeper.sweep([run], now: Self.start.addingTimeInterval(40)).isEmpty, "not twice while it stops")
        let next = Self.running("a", run: "a-r2", since: 50)
        #expect(sweeper.sweep([next], now: Self.start.addingTimeInterval(85)) == [.abortRun(session: "a", runID: "a-r2", ran: 35)])
    }

    @Test func terminalSessionsAndLimitsThatAreOffAreLeftAlone() {
        var off = LimitSweeper(limits: SessionLimits())
        #expect(off.sweep([Self.idle("a", since: 0), Self.running("b", run: "b-r1", since: 0)], now: Self.start.addingTimeInterval(1e6)).isEmpty)
        var on = LimitSweeper(limits: SessionLimits(idleSeconds: 1, maxRunSeconds: 1))
        #expect(on.sweep([Self.idle("t", since: 0, terminal: true)], now: Self.start.addingTimeInterval(1e6)).isEmpty)
    }

    /// A restarted daemon sweeps with a fresh sweeper: a session idle past its time before the
    /// restart (its saved last activity says so) is dealt with at the first sweep.
    @Test func aSessionIdleBeforeARestartIsDealtWithAtTheFirstSweep() {
        var before = LimitSweeper(limits: SessionLimits(idleSeconds: 600))
        #expect(before.sweep([Self.idle("a", since: 0)], now: Self.start.addingTimeInterval(300)).isEmpty)
        var after = LimitSweeper(limits: SessionLimits(idleSeconds: 600))
        #expect(after.sweep([Self.idle("a", since: 0)], now: Self.start.addingTimeInterval(601)) == [.end(session: "a", idle: 601)])
    }
}
