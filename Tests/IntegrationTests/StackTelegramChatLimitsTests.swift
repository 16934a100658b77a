import Foundation
import PiRelaySDK
import Testing

/// Issue 17's remaining stack scenarios on Telegram, through the daemon and the fake Bot API:
/// the long answer's two buttons, the vision refusal, and the limits (a full queue, the run
/// limit, the idle TTL). The command layer is the one Discord uses; the plugin only shows it.
@Suite struct StackTelegramChatLimitsTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theFullAnswerButtonsAndTheVisionRefusal() async throws {
        try await TelegramStack.with { stack in
            try Data(ChatSessionsTests.textOnlyModels.utf8).write(to: URL(fileURLWithPath: stack.agentDir + "/models.json"))
            // Two messages at most, then a preview and the whole answer as a file.
            try await stack.start(extra: "formatter:\n  maxChunks: 2\n")
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")

            // A long answer: a preview, its file, and under it Show in chat and Download .md.
            try await stack.dm("!scenario text 1500")
            let offer = try #require(try await stack.waitForBotMessage(in: chat, containing: "The answer was cut to a preview", timeout: 90).first)
            let before = try await stack.botMessages(chat).count
            _ = try await stack.press("Show in chat", on: offer)
            _ = try await waitFor("the whole answer in chat", timeout: .seconds(60)) { () -> Bool? in
                try await stack.botMessages(chat).count >= before + 3 ? true : nil
            }
            _ = try await stack.press("Download .md", on: offer)
            _ = try await waitFor("the answer as a document", timeout: .seconds(60)) { () -> Bool? in
                let documents = try await stack.botMessages(chat).compactMap { $0["document"]?["file_name"]?.stringValue }
                return documents.filter { $0.hasSuffix(".md") }.count >= 2 ? true : nil
            }

            // A model that reads no images: the picture is not sent, the text is.
            try await stack.dm("/model ollama/llama3.1:8b")
            try await stack.waitForBotMessage(in: chat, containing: "now uses ollama/llama3.1:8b")
            let png = Data(E2ESamples.png).base64EncodedString()
            try await stack.dm("what is on it?", extra: ["photo": ["content_b64": .string(png), "width": 64, "height": 48]])
            try await stack.waitForBotMessage(in: chat, containing: "ollama/llama3.1:8b takes no image input")
            let prompt = try await waitFor("the text's prompt") { stack.piPrompts(containing: "what is on it?").first }
            #expect(prompt["images"] == nil, "no image reached pi: \(prompt)")
        }
    }

    /// `maxRunSeconds: 10`, `queueMax: 1`, `idleSeconds: 6`: a second waiting prompt is refused,
    /// the long run is stopped at its limit, then the idle session ends.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theRunLimitAFullQueueAndTheIdleTTL() async throws {
        try await TelegramStack.with { stack in
            try await stack.start(sessionLimits: ["maxRunSeconds: 10", "queueMax: 1", "idleSeconds: 6", "sweepSeconds: 1"])
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) long")
            try await stack.waitForBotMessage(in: chat, containing: "Started long")
            try await stack.dm("!scenario slow 300 100")
            try await stack.waitForBotMessage(in: chat, containing: "chunk 3 ")
            try await stack.dm("one")
            _ = try await waitFor("the first follow-up reaches pi") { stack.piPrompts(containing: "one").first }
            try await stack.dm("two")
            try await stack.waitForBotMessage(in: chat, containing: "already has 1 prompt(s) waiting (sessions.limits.queueMax)")
            #expect(stack.piPrompts(containing: "two").isEmpty, "the refused prompt never reached pi")
            try await stack.waitForBotMessage(in: chat, containing: "past sessions.limits.maxRunSeconds (10): it was stopped")
            try await stack.waitForBotMessage(in: chat, containing: "(sessions.limits.idleSeconds: 6): it was ended", timeout: 90)
        }
    }
}
