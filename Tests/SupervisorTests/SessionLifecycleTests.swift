import Testing

@testable import Supervisor

/// A session's pi through its life, and the state shown to users, worked out from the phase,
/// the run and the open questions.
@Suite struct SessionLifecycleTests {
    func at(_ phase: SessionLifecycle.Phase) -> SessionLifecycle { SessionLifecycle(phase: phase) }

    @Test func aRunningSessionIsIdleBusyOrWaiting() {
        #expect(at(.running).state(busy: false, openQuestions: 0) == .idle)
        #expect(at(.running).state(busy: true, openQuestions: 0) == .busy)
        #expect(at(.running).state(busy: true, openQuestions: 1) == .waitingForAnswer)
        #expect(at(.running).state(busy: false, openQuestions: 2) == .waitingForAnswer, "a question outlives the run that asked it")
    }

    @Test func startingShowsUntilSomethingHappens() {
        #expect(at(.starting).state(busy: false, openQuestions: 0) == .starting)
        #expect(at(.starting).state(busy: true, openQuestions: 0) == .busy)
        #expect(at(.starting).state(busy: false, openQuestions: 1) == .waitingForAnswer)
        #expect(at(.resuming).state(busy: false, openQuestions: 0) == .resuming)
    }

    @Test func anExitedSessionSaysWhyWhateverElseIsLeft() {
        let lifecycle = at(.exited(reason: "pi exited with status 1"))
        #expect(lifecycle.state(busy: true, openQuestions: 3) == .exited(reason: "pi exited with status 1"))
    }

    @Test func launchesAnswersAndExits() {
        var lifecycle = SessionLifecycle()
        let first = lifecycle.launch(resuming: false)
        #expect(lifecycle.phase == .starting)
        lifecycle.answered()
        #expect(lifecycle.phase == .running)
        #expect(
            lifecycle.exited(.exited(1), stderr: ["", "No models available.", "see --help", "bye"])
                == "pi exited with status 1: No models available. | see --help | bye")
        let second = lifecycle.launch(resuming: true)
        #expect(lifecycle.phase == .resuming)
        #expect(!lifecycle.isCurrent(first) && lifecycle.isCurrent(second))
    }

    @Test func aStartThatFailsSaysWhyUnlessTheExitDid() {
        var lifecycle = SessionLifecycle()
        _ = lifecycle.launch(resuming: false)
        _ = lifecycle.exited(.exited(127), stderr: [])
        lifecycle.failedToStart("pi did not answer get_state: timeout", exitSeen: true)
        #expect(lifecycle.phase == .exited(reason: "pi exited with status 127"))
        _ = lifecycle.launch(resuming: false)
        lifecycle.failedToStart("pi did not answer get_state: timeout", exitSeen: false)
        #expect(lifecycle.phase == .exited(reason: "pi did not answer get_state: timeout"))
    }

    @Test func anEndedSessionsExitIsNoFailure() {
        var lifecycle = SessionLifecycle()
        _ = lifecycle.launch(resuming: false)
        lifecycle.answered()
        lifecycle.end()
        #expect(lifecycle.exited(.signaled(15), stderr: ["Terminated"]) == "ended")
        #expect(lifecycle.ending)
    }
}
