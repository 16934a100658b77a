import Testing

@testable import MessengerKit

/// The retry rules the Telegram and Slack clients share, tried on their own.
@Suite struct APIAttemptsTests {
    /// The rules after `tries` tries that failed the same way.
    static func nexts(_ failure: APIAttempts.Failure, tries: Int, rateLimitedTries: Int = 6) -> [APIAttempts.Next] {
        var attempts = APIAttempts(rateLimitedTries: rateLimitedTries)
        return (0..<tries).map { _ in
            attempts.start()
            return attempts.next(after: failure)
        }
    }

    @Test func aTransportFailureIsTriedFourTimesWithGrowingPauses() {
        #expect(
            Self.nexts(.transport, tries: 4) == [
                .retry(after: .milliseconds(500)), .retry(after: .seconds(1)), .retry(after: .milliseconds(1500)), .giveUp,
            ])
    }

    @Test func aServerErrorWaitsLongerAndANonAnswerIsRetriedOnlyWhenTheServerFailed() {
        #expect(Self.nexts(.serverError, tries: 4) == [.retry(after: .seconds(1)), .retry(after: .seconds(2)), .retry(after: .seconds(3)), .giveUp])
        #expect(Self.nexts(.notAnAnswer(status: 502), tries: 2) == [.retry(after: .seconds(1)), .retry(after: .seconds(2))])
        // A 200 that is not the API's answer is a wrong apiBase: trying again cannot help.
        #expect(Self.nexts(.notAnAnswer(status: 200), tries: 1) == [.giveUp])
        #expect(Self.nexts(.refused, tries: 1) == [.giveUp])
    }

    @Test func aRateLimitIsTriedAfterTheHoldUpToItsOwnCount() {
        #expect(Self.nexts(.rateLimited(wait: nil), tries: 8, rateLimitedTries: 8) == Array(repeating: .afterHold, count: 7) + [.giveUp])
        // Nothing paces a call for no chat: the pause is the service's.
        #expect(Self.nexts(.rateLimited(wait: .seconds(3)), tries: 2, rateLimitedTries: 2) == [.retry(after: .seconds(3)), .giveUp])
    }

    @Test func runStopsAtTheFirstSuccessAndThrowsTheLastFailure() async throws {
        struct Refusal: Error, Equatable { let attempt: Int }
        let tries = Counter()
        let value = try await APIAttempts.run(rateLimitedTries: 6) { attempt -> APIAttempt<String> in
            await tries.add()
            return attempt < 3 ? .failed(.rateLimited(wait: nil), Refusal(attempt: attempt)) : .done("ok")
        }
        #expect(value == "ok")
        #expect(await tries.count == 3)
        await #expect(throws: Refusal(attempt: 1)) {
            try await APIAttempts.run(rateLimitedTries: 6) { attempt -> APIAttempt<String> in .failed(.refused, Refusal(attempt: attempt)) }
        }
    }

    actor Counter {
        var count = 0
        func add() { count += 1 }
    }
}
