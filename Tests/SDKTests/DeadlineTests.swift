import PiRelaySDK
import Testing

/// `withDeadline` fires its timeout only when the work outlasts it, and `Duration` converts to
/// milliseconds the way the protocol's `…Ms` fields expect.
@Suite struct DeadlineTests {
    /// A continuation that the work waits on and the timeout resumes, as the request paths use it.
    actor Waiter {
        var continuation: CheckedContinuation<String, any Error>?
        func wait() async throws -> String { try await withCheckedThrowingContinuation { continuation = $0 } }
        func answer(_ text: String) {
            continuation?.resume(returning: text)
            continuation = nil
        }
        func expire() {
            continuation?.resume(throwing: CancellationError())
            continuation = nil
        }
        func request(within timeout: Duration) async throws -> String {
            try await withDeadline(timeout, onTimeout: { [weak self] in await self?.expire() }) {
                try await wait()
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func timeoutEndsWorkThatOutlastsIt() async throws {
        let waiter = Waiter()
        let start = ContinuousClock.now
        await #expect(throws: CancellationError.self) { _ = try await waiter.request(within: .milliseconds(50)) }
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test(.timeLimit(.minutes(1)))
    func timeoutDoesNotFireAfterTheWorkEnded() async throws {
        let waiter = Waiter()
        let value = try await withDeadline(.milliseconds(50), onTimeout: { await waiter.answer("late") }) { "done" }
        #expect(value == "done")
        async let late = waiter.wait()
        // Waiting, so that `expire` below has something to end.
        while await waiter.continuation == nil { await Task.yield() }
        // Had the timer survived, it would answer this wait after 50 ms; the 300 ms deadline must.
        try await Task.sleep(for: .milliseconds(300))
        await waiter.expire()
        do {
            let text = try await late
            Issue.record("answered \(text) by a timer that should have been cancelled")
        } catch is CancellationError {}
    }

    @Test(.timeLimit(.minutes(1)))
    func answerBeforeTheDeadlineWins() async throws {
        let waiter = Waiter()
        async let answer = waiter.request(within: .seconds(30))
        while await waiter.continuation == nil { await Task.yield() }
        await waiter.answer("pong")
        let text = try await answer
        #expect(text == "pong")
    }

    @Test func millisecondsRoundTowardZero() {
        #expect(Duration.seconds(2).inMilliseconds == 2000)
        #expect(Duration.milliseconds(1500).inMilliseconds == 1500)
        #expect((Duration.milliseconds(7) + .microseconds(999)).inMilliseconds == 7)
        #expect(Duration.microseconds(999).inMilliseconds == 0)
        #expect(Duration.milliseconds(250).inSeconds == 0.25)
    }
}
