import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// The session as a pure state machine, on a fake clock: what it asks the session to do as pi's
/// events come, as time passes, and when pi goes away (specs/pi-rpc.md §3 for when a run ends).
@Suite struct SessionMachineTests {
    let t0 = ContinuousClock.now
    let d0 = Date(timeIntervalSince1970: 1_800_000_000)

    static let start = #"{"type":"agent_start"}"#
    static let end = #"{"type":"agent_end","messages":[]}"#
    static let abortedEnd =
        #"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}],"stopReason":"aborted"}}"#
    static let delta =
        #"{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}]},"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hi","partial":{"role":"assistant","content":[{"type":"text","text":"Hi"}]}}}"#
    static let retry = #"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":100,"errorMessage":"overloaded"}"#

    func machine(runsBefore: Int = 0) -> SessionMachine {
        var machine = SessionMachine(
            record: SessionRecord(id: "s1", name: "web", cwd: "/w", createdAt: d0, lastActivity: d0, runs: runsBefore))
        machine.lifecycle = SessionLifecycle(phase: .running)
        return machine
    }

    func feed(_ machine: inout SessionMachine, _ line: String, at t: ContinuousClock.Instant, date: Date? = nil) throws -> [SessionMachine.Action] {
        machine.apply(try PiEventReader().read(line), at: t, date: date ?? d0)
    }

    /// The actions by name, for comparing their order.
    func names(_ actions: [SessionMachine.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .forgetImages: "forgetImages"
            case .save: "save"
            case .tell(.runStarted(let run)): "tell runStarted \(run.runID)"
            case .tell(.runFinished(let run)): "tell runFinished \(run.runID) \(run.stopReason ?? "-")"
            case .tell: "tell"
            case .offer(let run): "offer \(run.runID)"
            case .record(let type, _): "record \(type)"
            case .settleAfter: "settleAfter"
            case .saveIfEnded(let runID): "saveIfEnded \(runID)"
            case .abort: "abort"
            }
        }
    }

    @Test func aRunStartsIsOfferedOnceUntilFetchedAndEndsAfterTheSettleWindow() throws {
        var session = machine(runsBefore: 4)
        session.promptOrigin = "telegram:42"
        session.freshConversation = true
        let started = try feed(&session, Self.start, at: t0, date: d0 + 5)
        #expect(names(started) == ["forgetImages", "save", "tell runStarted s1-5"], "saved before it is told; numbered after the earlier runs")
        #expect(session.state(openQuestions: 0) == .busy && !session.freshConversation)
        #expect(session.runs.active == "s1-5" && session.runs.startedAt == d0 + 5)
        #expect(session.lastActivity == d0 + 5)

        // Offered once; the next change is offered only after the observer fetched the run.
        #expect(names(try feed(&session, Self.delta, at: t0)) == ["offer s1-5"])
        #expect(names(try feed(&session, Self.delta, at: t0)).isEmpty)
        #expect(session.fetch("s1-5")?.text == "HiHi")
        #expect(names(try feed(&session, Self.delta, at: t0)) == ["offer s1-5"])
        #expect(session.fetch("s1-4") == nil, "another run's fetch finds nothing")

        let ended = try feed(&session, Self.end, at: t0 + .seconds(1))
        #expect(names(ended).contains("settleAfter"))
        #expect(names(session.settle(at: t0 + .milliseconds(1_200), date: d0 + 6)).isEmpty, "still inside the settle window")
        #expect(session.isBusy)
        let finished = session.settle(at: t0 + .milliseconds(1_400), date: d0 + 7)
        #expect(names(finished) == ["record run_finished", "tell runFinished s1-5 -", "saveIfEnded s1-5"])
        #expect(session.state(openQuestions: 0) == .idle)
        #expect(session.runs.recent.last?.origin == "telegram:42" && session.runs.recent.last?.endedAt == d0 + 7)
        #expect(session.runEnded("s1-5") && !session.runEnded("s1-5"), "the save happens once")
        #expect(session.runsNumbered == 5)
    }

    /// pi extension spec §11 trap 10: a stop in a prompt's pre-run phase is kept for the run the
    /// prompt starts, once; a stop with no prompt on its way, or one whose prompt pi refused,
    /// aborts nothing later.
    @Test func aStopBeforeTheRunStartsAbortsItAsItStarts() throws {
        var session = machine()
        session.promptSent("go", at: t0)
        session.stopRequested()
        #expect(names(try feed(&session, Self.start, at: t0 + .milliseconds(900))).last == "abort")
        _ = try feed(&session, Self.end, at: t0 + .seconds(1))
        _ = session.settle(at: t0 + .seconds(2), date: d0)
        session.promptSent("again", at: t0 + .seconds(3))
        #expect(!names(try feed(&session, Self.start, at: t0 + .seconds(4))).contains("abort"), "the stop was spent")

        var idle = machine()
        idle.stopRequested()
        idle.promptSent("later", at: t0)
        #expect(!names(try feed(&idle, Self.start, at: t0 + .seconds(1))).contains("abort"), "no prompt was on its way")

        var refused = machine()
        refused.promptSent("no key", at: t0)
        refused.stopRequested()
        refused.promptRefused()
        refused.promptSent("with a key", at: t0 + .seconds(1))
        #expect(!names(try feed(&refused, Self.start, at: t0 + .seconds(2))).contains("abort"), "its prompt never ran")
    }

    @Test func aRetryAfterAgentEndKeepsTheRunAndAnOpenQuestionOutranksIt() throws {
        var session = machine()
        _ = try feed(&session, Self.start, at: t0)
        _ = try feed(&session, Self.end, at: t0)
        _ = try feed(&session, Self.retry, at: t0 + .milliseconds(100))
        #expect(names(session.settle(at: t0 + .seconds(5), date: d0)).isEmpty, "a retry is pending: the run goes on")
        #expect(session.state(openQuestions: 1) == .waitingForAnswer)
        #expect(
            names(try feed(&session, Self.start, at: t0 + .seconds(6))).allSatisfy { !$0.hasPrefix("tell runStarted") }, "the retry is the same run")
    }

    @Test func piGoingAwayOrACompactionEndsTheRunAtOnce() throws {
        var session = machine()
        _ = try feed(&session, Self.start, at: t0)
        #expect(
            names(session.childExited(reason: "pi exited with status 1", date: d0)) == [
                "record run_finished", "tell runFinished s1-1 error", "saveIfEnded s1-1",
            ])
        #expect(names(session.childExited(reason: "again", date: d0)).isEmpty, "nothing left to end")

        _ = try feed(&session, Self.start, at: t0)
        #expect(
            names(session.abortedSilently(by: "compact", date: d0)) == ["record run_finished", "tell runFinished s1-2 aborted", "saveIfEnded s1-2"])
        #expect(session.lastActivity == d0)
    }

    /// An aborted run's `agent_end` is followed by nothing (pi-rpc spec §5: abort also cancels a
    /// pending retry): once `abort` is answered the run is over, and the next prompt's run is a
    /// run of its own, not a continuation of the stopped one.
    @Test func anAnsweredAbortEndsTheSettlingRunAtOnce() throws {
        var session = machine()
        _ = try feed(&session, Self.start, at: t0)
        #expect(session.abortAnswered(date: d0).isEmpty, "running: the abort's agent_end is still to come")
        _ = try feed(&session, Self.abortedEnd, at: t0 + .milliseconds(50))
        _ = try feed(&session, Self.end, at: t0 + .milliseconds(100))
        let over = session.abortAnswered(date: d0 + 1)
        #expect(names(over).first == "record run_finished" && names(over).contains("saveIfEnded s1-1"), "\(names(over))")
        #expect(!session.isBusy)
        #expect(names(try feed(&session, Self.start, at: t0 + .milliseconds(200))).contains { $0.hasPrefix("tell runStarted") })
        // A run that ended by itself keeps its window: its retry may still come.
        _ = try feed(&session, Self.end, at: t0 + .milliseconds(300))
        #expect(session.abortAnswered(date: d0 + 2).isEmpty && session.isBusy)
    }

    /// pi-rpc spec §5: a prompt sent while idle starts a run pi has not announced yet; a prompt
    /// sent meanwhile waits behind it, for a bounded while, and not behind an extension command.
    @Test func aSentPromptIsARunAboutToStartUntilItStartsOrTheWindowPasses() throws {
        var session = machine()
        #expect(!session.runAboutToStart(at: t0))
        session.promptSent("/compact-notes", at: t0)
        #expect(!session.runAboutToStart(at: t0), "an extension command starts no run")
        session.promptSent("fix the build", at: t0)
        #expect(session.runAboutToStart(at: t0 + .seconds(1)))
        #expect(!session.runAboutToStart(at: t0 + SessionMachine.promptStartWindow), "not for ever")
        _ = try feed(&session, Self.start, at: t0 + .seconds(2))
        #expect(!session.runAboutToStart(at: t0 + .seconds(2)), "its run has started: the machine is busy instead")
        _ = session.childExited(reason: "gone", date: d0)

        session.promptSent("again", at: t0 + .seconds(10))
        session.promptRefused()
        #expect(!session.runAboutToStart(at: t0 + .seconds(10)), "pi refused it")
        session.promptSent("and again", at: t0 + .seconds(10))
        _ = session.childExited(reason: "gone", date: d0)
        #expect(!session.runAboutToStart(at: t0 + .seconds(10)), "pi is gone")
    }

    @Test func aResponseIsNoActivityButACommandIs() throws {
        var session = machine()
        _ = try feed(&session, #"{"type":"response","command":"get_state","success":true,"id":"r1"}"#, at: t0, date: d0 + 60)
        #expect(session.lastActivity == d0, "a query's answer does not restart the idle clock")
        session.active(at: d0 + 90)
        #expect(session.lastActivity == d0 + 90)
    }
}
