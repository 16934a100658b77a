import Foundation
import PiRelaySDK
import Testing

/// Issue 17 points 3 and 7 on Telegram, through the daemon and the fake Bot API: the command
/// layer is the same, the plugin only shows it.
@Suite struct StackTelegramChatSessionsTests {
    static func text(_ message: JSONValue) -> String { message["text"]?.stringValue ?? "" }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func twoSessionsInOnePrivateChatAndAGuidedAnswer() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            let web = stack.home.root + "/web"
            try FileManager.default.createDirectory(atPath: web, withIntermediateDirectories: true)
            try await stack.dm("/new \(stack.workspace) api")
            try await stack.waitForBotMessage(in: chat, containing: "Started api")
            try await stack.dm("/new \(web) web")
            try await stack.waitForBotMessage(in: chat, containing: "Started web")

            try await stack.dm("/sessions")
            let list = try #require(try await stack.waitForBotMessage(in: chat, containing: "🔵 1. api · ").first)
            #expect(Self.text(list).contains("🟢 2. web · ") && !Self.text(list).contains("**"), "plain text: \(Self.text(list))")
            try await stack.dm("hello web")
            let fromWeb = try #require(try await stack.waitForBotMessage(in: chat, containing: "Echo: hello web").first)
            #expect(Self.text(fromWeb).hasPrefix("🟢 web\n"), "\(Self.text(fromWeb))")
            try await stack.dm("/to 1 hello api")
            let fromAPI = try #require(try await stack.waitForBotMessage(in: chat, containing: "Echo: hello api").first)
            #expect(Self.text(fromAPI).hasPrefix("🔵 api\n"), "\(Self.text(fromAPI))")

            try await stack.dm("Which colour?\n1. red\n2. green")
            let offer = try #require(try await stack.waitForBotMessage(in: chat, containing: "Pick an answer").first)
            #expect(Self.text(offer).hasPrefix("🟢 web"), "\(Self.text(offer))")
            _ = try await stack.press("2. green", on: offer)
            try await stack.waitForBotMessage(in: chat, containing: "Echo: Answer: 2. green")

            try await stack.dm("Which colour?\n1. red\n2. green")
            try await stack.waitForBotMessage(in: chat, containing: "Pick an answer", count: 2)
            try await stack.dm("2")
            try await stack.waitForBotMessage(in: chat, containing: "Echo: Answer: 2. green", count: 2)
            #expect(stack.piPrompts(containing: "Answer: 2. green").count == 2)

            // The words: a bare `answer` shows the options to step through, `cancel` leaves, and
            // neither reaches pi.
            try await stack.dm("Which colour?\n1. red\n2. green")
            try await stack.waitForBotMessage(in: chat, containing: "Pick an answer", count: 3)
            try await stack.dm("answer")
            let card = try #require(try await stack.waitForBotMessage(in: chat, containing: "Reply with a number").first)
            #expect(Self.text(card).contains("1. red") && Self.text(card).contains("2. green"), "\(Self.text(card))")
            try await stack.dm("cancel")
            try await stack.waitForBotMessage(in: chat, containing: "nothing was sent")
            #expect(stack.piPrompts(containing: "Answer: cancel").isEmpty && stack.piPrompts(containing: "answer").isEmpty)

            // A label with HTML's own characters reads as it was typed: a reply's text is plain,
            // and the plugin escapes it once (PROTOCOL.md, "Markup").
            try await stack.dm("/alias R&D<x>")
            try await stack.dm("Which colour?\n1. red\n2. green")
            let labelled = try #require(try await stack.waitForBotMessage(in: chat, containing: "Pick an answer", count: 4).last)
            #expect(Self.text(labelled).hasPrefix("🟢 R&D<x> · "), "\(Self.text(labelled))")
        }
    }
}
