import Foundation
import PiRelaySDK
import Testing

/// Priority in the per-chat budget: an answer by button and the question's closing are one fact,
/// so they are one write in a Telegram chat (about one a second): the card's edit, saying who
/// answered what, and no "Answered: …" message beside it.
@Suite struct StackTelegramAnswerTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aButtonAnswerIsTheCardsEditAlone() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.dm("!scenario ui confirm")
            let asked = try await stack.waitForCard(in: chat, containing: "Apply the migration?")
            let before = try await stack.botMessages(chat).count

            _ = try await stack.press("Yes", on: asked)
            try await stack.waitForBotMessage(in: chat, containing: "confirm answer: true")
            // The card closes after the chat's questions and finals (QuestionClosings).
            var card: JSONValue?
            try await waitUntil("the card says who answered what") {
                card = try await stack.fake.get("/message?chat_id=\(chat)&message_id=\(asked["message_id"]?.intValue ?? 0)")["message"]
                return card?["text"]?.stringValue?.contains("answered: yes") == true
            }
            #expect(card?["text"]?.stringValue?.contains("alice") == true, "\(String(describing: card))")
            let after = try await stack.botMessages(chat).dropFirst(before)
            #expect(!after.contains { $0["text"]?.stringValue?.hasPrefix("Answered") == true }, "no separate answer message: \(Array(after))")
        }
    }

    /// An editor question answered with a long reply: the card's closing holds the whole answer,
    /// and with the title it came out over Telegram's 4,096 (§15: "message is too long"); the
    /// edit was given up and the card kept its buttons for good. The closing is cut within the
    /// limit, so the card closes.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aLongAnswerStillClosesTheCard() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.dm("!scenario ui editor")
            let asked = try await stack.waitForCard(in: chat, containing: "Edit the commit message")
            try await stack.dm(String(repeating: "word ", count: 818))
            try await stack.waitForBotMessage(in: chat, containing: "editor answer:")
            var card: JSONValue?
            try await waitUntil("the card says who answered") {
                card = try await stack.fake.get("/message?chat_id=\(chat)&message_id=\(asked["message_id"]?.intValue ?? 0)")["message"]
                return card?["text"]?.stringValue?.contains("answered") == true
            }
            #expect(card?["reply_markup"] == nil || card?["reply_markup"] == .null, "no buttons left: \(String(describing: card))")
        }
    }
}
