import Foundation
import PiRelaySDK
import Testing

/// Issue 17 points 3, 7, 9 and 10 through the real daemon, its plugins and the fake Discord:
/// two sessions in one DM with markers, a guided answer by button and by "2", the vision
/// refusal, and the limits (run limit, full queue, idle TTL) with short settings.
@Suite struct StackChatSessionsTests {
    static let options = "Which colour?\n1. red\n2. green"

    /// The bot's message in the DM whose content contains `text`, newest last.
    static func content(_ message: JSONValue) -> String { message["content"]?.stringValue ?? "" }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func twoSessionsInOneDMCarryTheirMarkers() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            let web = stack.home.root + "/web"
            try FileManager.default.createDirectory(atPath: web, withIntermediateDirectories: true)
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "api"])
            _ = try await stack.command("new", ["cwd": .string(web), "name": "web"])

            let list = try await stack.command("sessions")
            #expect(list.text.contains("🔵 1. **api**") && list.text.contains("🟢 2. **web**"), "\(list.text)")
            #expect(list.text.contains("active here") && list.text.contains("watched here"), "\(list.text)")

            try await stack.dm("hello web")
            let fromWeb = try #require(try await stack.waitForBotMessage(in: dm, containing: "Echo: hello web").first)
            #expect(Self.content(fromWeb).hasPrefix("🟢 web\n"), "\(Self.content(fromWeb))")

            let used = try await stack.command("use", ["session": "1"])
            #expect(used.text.contains("Watching api"), "\(used.text)")
            try await stack.dm("hello api")
            let fromAPI = try #require(try await stack.waitForBotMessage(in: dm, containing: "Echo: hello api").first)
            #expect(Self.content(fromAPI).hasPrefix("🔵 api\n"), "\(Self.content(fromAPI))")

            // The other session still speaks here, marked as itself.
            _ = try await stack.command("to", ["session": "web", "text": "from the side"])
            let side = try #require(try await stack.waitForBotMessage(in: dm, containing: "Echo: from the side").first)
            #expect(Self.content(side).hasPrefix("🟢 web\n"), "\(Self.content(side))")
            let prompts = stack.piPrompts(containing: "hello").map { $0["message"]?.stringValue ?? "" }
            #expect(prompts == ["hello web", "hello api"], "each prompt went to the session active then: \(prompts)")
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aGuidedAnswerByButtonAndByTwo() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "pick"])

            try await stack.dm(Self.options)
            let offer = try #require(try await stack.waitForBotMessage(in: dm, containing: "Pick an answer").first)
            let green = try #require(StackHome.button("2. green", in: offer), "\(offer)")
            #expect(StackHome.button("1. red", in: offer) != nil && StackHome.button("Custom answer", in: offer) != nil)
            _ = try await stack.reply(to: try await stack.click(green, on: try #require(offer["id"]?.stringValue)))
            try await stack.waitForPiPrompt(containing: "Answer: 2. green")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: Answer: 2. green")

            let before = try await stack.fake.cursor
            try await stack.dm(Self.options)
            try await stack.waitForBotMessage(in: dm, containing: "Pick an answer", since: before)
            try await stack.dm("2")
            try await waitUntil("\"2\" answered the second choice", timeout: .seconds(60)) {
                stack.piPrompts(containing: "Answer: 2. green").count == 2
            }
            try await stack.waitForBotMessage(in: dm, containing: "Echo: Answer: 2. green", count: 2)
            #expect(stack.piInput("prompt").allSatisfy { $0["message"] != "2" }, "the bare 2 was an answer, not a prompt")
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anImageForAModelWithoutImageInputIsRefused() async throws {
        try await StackHome.with { stack in
            try Data(ChatSessionsTests.textOnlyModels.utf8).write(to: URL(fileURLWithPath: stack.agentDir + "/models.json"))
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "eyes"])
            let switched = try await stack.command("model", ["model": "ollama/llama3.1:8b"])
            #expect(switched.text.contains("now uses ollama/llama3.1:8b"), "\(switched.text)")

            let png = Data(E2ESamples.png).base64EncodedString()
            let posted = try await stack.fake.post(
                "/messages",
                [
                    "user_id": .string(StackUser.alice.id), "username": .string(StackUser.alice.name), "dm": true, "content": "what is on it?",
                    "attachments": [["filename": "shot.png", "content_type": "image/png", "data_b64": .string(png)]],
                ])
            #expect(posted["delivered_to"]?.arrayValue?.isEmpty == false, "\(posted)")
            try await stack.waitForBotMessage(in: dm, containing: "ollama/llama3.1:8b takes no image input")
            let prompt = try await stack.waitForPiPrompt(containing: "what is on it?")
            #expect(prompt["images"] == nil, "no image reached pi: \(prompt)")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: what is on it?")
        }
    }

    /// `maxRunSeconds: 10`, `queueMax: 1`, `idleSeconds: 6`: while a long run goes on, a second
    /// waiting prompt is refused; the run is stopped at its limit; then the session, idle, ends.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theRunLimitAFullQueueAndTheIdleTTL() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.sessionLimits = ["maxRunSeconds: 10", "queueMax: 1", "idleSeconds: 6", "sweepSeconds: 1"]
            try await stack.start(config)
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "long"])
            try await stack.dm("!scenario slow 300 100")
            try await stack.waitForState("long", "busy")
            try await stack.dm("one")
            try await stack.waitForPiPrompt(containing: "one")
            try await stack.dm("two")
            try await stack.waitForBotMessage(in: dm, containing: "already has 1 prompt(s) waiting (sessions.limits.queueMax)")
            #expect(stack.piPrompts(containing: "two").isEmpty, "the refused prompt never reached pi")

            try await stack.waitForBotMessage(in: dm, containing: "past sessions.limits.maxRunSeconds (10): it was stopped")
            // The notice and the abort leave the daemon together; the fake pi logs its stdin
            // when it reads it, which on a loaded machine can come after the chat shows the notice.
            try await waitUntil("pi told to abort") { stack.piInput("abort").count >= 1 }
            #expect(stack.piInput("abort").count == 1)
            try await stack.waitForBotMessage(in: dm, containing: "(sessions.limits.idleSeconds: 6): it was ended", timeout: 60)
            try await waitUntil("the session is gone", timeout: .seconds(30)) { try await stack.sessions().isEmpty }
        }
    }
}
