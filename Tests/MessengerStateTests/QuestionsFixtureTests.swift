import Foundation
import PiRelaySDK
import Testing

@testable import SlackPlugin
@testable import TelegramPlugin

/// `questions.json` as the released Slack and Telegram plugins write it: the questions they
/// posted. Today's plugins read it, and a closing noted in it (shown beside the delivery lane)
/// outlives a restart.
@Suite struct QuestionsFixtureTests {
    func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("questions-fixture-" + UUID().uuidString).path
    }

    @Test func slack() async throws {
        let literal =
            #"[{"answeredBy":"U1","channel":"C1","options":["Yes","No"],"questionID":"q1","sessionID":"s1","thread":"1700000000.000100","title":"Apply?","ts":"1700000000.000300"}]"#
        let posted = try await StateFixture.roundTrip([SlackPlugin.QuestionMessages.Posted].self, literal, as: "questions.json")
        #expect(posted.first?.closing == nil && posted.first?.answeredBy == "U1")
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = StateStore(directory: path)
        try Data(literal.utf8).write(to: URL(fileURLWithPath: store.path("questions.json")))
        let before = SlackPlugin.QuestionMessages(store: store)
        #expect(await before.find(channel: "C1", ts: "1700000000.000300")?.questionID == "q1")
        #expect(try await before.close(session: "s1", question: "q1", text: "alice answered: Yes"))
        #expect(await before.find(channel: "C1", ts: "1700000000.000300") == nil, "a closed question takes no more clicks")
        #expect(try await before.close(session: "s1", question: "q1", text: "again"), "a replayed closing is known: no message of its own")
        #expect(try await before.close(session: "s1", question: "q2", text: "never posted here") == false)
        let after = SlackPlugin.QuestionMessages(store: store)
        #expect(await after.nextClosing?.text == "alice answered: Yes", "the closing outlives a restart")
        await after.closingShown(try #require(await after.nextClosing?.card))
        #expect(await SlackPlugin.QuestionMessages(store: store).nextClosing == nil)
    }

    @Test func telegram() async throws {
        let literal = #"{"s1\/q1":[{"chatID":"-100200","messageID":7,"title":"Apply?","topicID":3}]}"#
        let posted = try await StateFixture.roundTrip([String: [TelegramPlugin.QuestionMessages.Posted]].self, literal, as: "questions.json")
        #expect(posted["s1/q1"]?.first?.closing == nil)
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = StateStore(directory: path)
        try Data(literal.utf8).write(to: URL(fileURLWithPath: store.path("questions.json")))
        let before = TelegramPlugin.QuestionMessages(store: store)
        #expect(await before.count == 1)
        #expect(try await before.close("s1/q1", text: "alice answered: Yes"))
        #expect(try await before.close("s1/q1", text: "again"), "a replayed closing is known: no message of its own")
        #expect(await before.nextClosing?.text == "alice answered: Yes", "and changes nothing")
        let after = TelegramPlugin.QuestionMessages(store: store)
        #expect(await after.nextClosing?.card.messageID == 7, "the closing outlives a restart")
        await after.closingShown(try #require(await after.nextClosing?.card))
        #expect(await TelegramPlugin.QuestionMessages(store: store).count == 0)
    }

    /// A closing the disk will not keep is not acknowledged: the delivery is tried again, or a
    /// crash before the card's edit would leave its buttons live for good.
    @Test func aClosingNotSavedIsNotAcknowledged() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A file where the state folder should be: every save fails, even for root.
        try Data().write(to: URL(fileURLWithPath: path))
        let store = StateStore(directory: path)
        let telegram = TelegramPlugin.QuestionMessages(store: store)
        await telegram.add("s1/q1", .init(chatID: "-100200", topicID: nil, messageID: 7, title: "Apply?"))
        await #expect(throws: StateStore.NotSaved.self) { try await telegram.close("s1/q1", text: "alice answered: Yes") }
        // The card shown meanwhile (beside the lane) and forgotten: the retried closing is still
        // known, and posts no message of its own.
        await telegram.closingShown(try #require(await telegram.nextClosing?.card))
        #expect(try await telegram.close("s1/q1", text: "alice answered: Yes"))
        let slack = SlackPlugin.QuestionMessages(store: store)
        await slack.add(.init(channel: "C1", thread: nil, ts: "1.2", sessionID: "s1", questionID: "q1", title: "Apply?", options: ["Yes"]))
        await #expect(throws: StateStore.NotSaved.self) { try await slack.close(session: "s1", question: "q1", text: "alice answered: Yes") }
        await slack.closingShown(try #require(await slack.nextClosing?.card))
        #expect(try await slack.close(session: "s1", question: "q1", text: "alice answered: Yes"))
    }
}
