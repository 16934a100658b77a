import Testing

@testable import Supervisor
@testable import SupervisorIO

@Suite struct PollPacingTests {
    let start = ContinuousClock.now

    /// Feeds wake-ups `every` apart for `count` rounds; returns the last answer.
    func feed(_ pacing: inout PollPacing, from: Duration, every: Duration, count: Int) -> Duration {
        var answer = Duration.zero
        for round in 0..<count { answer = pacing.woke(at: start + from + every * round) }
        return answer
    }

    @Test func aQuietThreadNeverPauses() {
        var pacing = PollPacing()
        // 20 wake-ups a second for ten seconds: a lone chat, a plugin's replies.
        #expect(feed(&pacing, from: .zero, every: .milliseconds(50), count: 200) == .zero)
        #expect(!pacing.pausing)
    }

    @Test func aBusyThreadPausesAfterOneWindow() {
        var pacing = PollPacing()
        // 500 a second, as with 20 sessions streaming: the first window is counted, then it pauses.
        #expect(pacing.woke(at: start) == .zero)
        #expect(feed(&pacing, from: .milliseconds(2), every: .milliseconds(2), count: 49) == .zero)
        #expect(pacing.woke(at: start + .milliseconds(100)) == pacing.pause)
        #expect(pacing.pausing)
    }

    @Test func thePauseItselfDoesNotSwitchItOff() {
        var pacing = PollPacing()
        _ = feed(&pacing, from: .zero, every: .milliseconds(2), count: 60)
        #expect(pacing.pausing)
        // Paused, a round comes about every pause + 1 ms: under busyRate, over quietRate.
        #expect(feed(&pacing, from: .milliseconds(120), every: pacing.pause + .milliseconds(1), count: 100) == pacing.pause)
    }

    @Test func itStopsPausingWhenTheStreamEnds() {
        var pacing = PollPacing()
        _ = feed(&pacing, from: .zero, every: .milliseconds(2), count: 60)
        #expect(pacing.pausing)
        // One wake-up after a second's silence: the window it closes was quiet.
        #expect(pacing.woke(at: start + .seconds(2)) == .zero)
        #expect(!pacing.pausing)
    }

    @Test func aShortBurstStaysUnpausedUntilItsWindowCloses() {
        var pacing = PollPacing()
        // Ten lines in 10 ms, then quiet: the window holding the burst averages 67 a second.
        #expect(feed(&pacing, from: .zero, every: .milliseconds(1), count: 10) == .zero)
        #expect(pacing.woke(at: start + .milliseconds(150)) == .zero)
        #expect(!pacing.pausing)
    }

    @Test func aChildFillingItsPipeIsNeverHeldBack() {
        var pacing = PollPacing()
        _ = feed(&pacing, from: .zero, every: .milliseconds(2), count: 60)
        #expect(pacing.pausing)
        #expect(pacing.woke(at: start + .milliseconds(122), largestRead: 64 << 10) == .zero)
        #expect(pacing.woke(at: start + .milliseconds(124), largestRead: 7_000) == pacing.pause)
    }
}
