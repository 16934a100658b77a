import Foundation
import PiRelaySDK
import Testing

@testable import SlackPlugin

/// The questions a Slack plugin posted. Slack shows a message before it answers its post, so a
/// click can come before the question's ts is known: it waits for the post in flight.
@Suite struct QuestionMessagesTests {
    private func withStore(_ body: (StateStore) async throws -> Void) async rethrows {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("questions-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await body(StateStore(directory: folder))
    }

    private func card(_ ts: String) -> QuestionMessages.Posted {
        .init(channel: "DALICE01", ts: ts, sessionID: "s1", questionID: "q1", title: "Pick a colour", options: ["red", "green"])
    }

    @Test func aClickBeforeThePostsAnswerFindsTheQuestion() async throws {
        try await withStore { store in
            let questions = QuestionMessages(store: store)
            await questions.postStarted()
            async let found = questions.find(channel: "DALICE01", ts: "1.000002")
            try await Task.sleep(for: .milliseconds(100))
            await questions.add(card("1.000002"))
            #expect(await found?.questionID == "q1")
        }
    }

    @Test func withNoPostInFlightAnUnknownMessageIsNoQuestionAtOnce() async throws {
        try await withStore { store in
            let questions = QuestionMessages(store: store)
            await questions.add(card("1.000002"))
            let start = ContinuousClock.now
            #expect(await questions.find(channel: "DALICE01", ts: "1.000009") == nil)
            // A failed post ends the wait as well.
            await questions.postStarted()
            await questions.postFailed()
            #expect(await questions.find(channel: "DALICE01", ts: "1.000009") == nil)
            #expect(ContinuousClock.now - start < .seconds(1))
            // A post still in flight is waited for, up to the limit.
            await questions.postStarted()
            #expect(await questions.find(channel: "DALICE01", ts: "1.000009", wait: .milliseconds(200)) == nil)
        }
    }

    /// Two clicks before the closing comes: the card names the first, whose answer the daemon took.
    @Test func theFirstClickNamesWhoAnswered() async throws {
        try await withStore { store in
            let questions = QuestionMessages(store: store)
            await questions.add(card("1.000002"))
            await questions.answered(channel: "DALICE01", ts: "1.000002", by: "UALICE")
            await questions.answered(channel: "DALICE01", ts: "1.000002", by: "UBOB")
            #expect(await questions.find(channel: "DALICE01", ts: "1.000002")?.answeredBy == "UALICE")
        }
    }
}
