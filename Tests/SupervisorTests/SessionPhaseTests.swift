import Testing

@testable import Supervisor

/// The session state shown to users, worked out from the phase, the run and the open questions.
@Suite struct SessionPhaseTests {
    @Test func aRunningSessionIsIdleBusyOrWaiting() {
        #expect(SessionPhase.running.state(busy: false, openQuestions: 0) == .idle)
        #expect(SessionPhase.running.state(busy: true, openQuestions: 0) == .busy)
        #expect(SessionPhase.running.state(busy: true, openQuestions: 1) == .waitingForAnswer)
        #expect(
            SessionPhase.running.state(busy: false, openQuestions: 2) == .waitingForAnswer,
            "a question outlives the run that asked it")
    }

    @Test func startingShowsUntilSomethingHappens() {
        #expect(SessionPhase.starting.state(busy: false, openQuestions: 0) == .starting)
        #expect(SessionPhase.starting.state(busy: true, openQuestions: 0) == .busy)
        #expect(SessionPhase.starting.state(busy: false, openQuestions: 1) == .waitingForAnswer)
    }

    @Test func anExitedSessionSaysWhyWhateverElseIsLeft() {
        let phase = SessionPhase.exited(reason: "pi exited with status 1")
        #expect(phase.state(busy: true, openQuestions: 3) == .exited(reason: "pi exited with status 1"))
    }
}
