import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// "Terminal sessions behave exactly as real pi does", points 10, 13 and 14, through the real
/// daemon, the discord plugin against its fake, and the fake pi host running the real extension:
/// `/relay pair` in the terminal binds the chat that claims the code; another extension's
/// ask_user shows in the chat and closes when the terminal answers it; a chat's `/skill:` prompt
/// reaches pi expanded.
@Suite(.serialized) struct StackRelayCommandTests {
    static let piSessionID = "7c2e9a10-3b4d-4e5f-8a6b-1c2d3e4f5a6b"
    static let sessionID = "t-7c2e9a103b4d"

    static func attach(_ stack: StackHome, alsoLoad: [String] = []) async throws -> HostedPi {
        let pi = try HostedPi(home: stack.home, name: "pi1", cwd: stack.workspace, sessionID: Self.piSessionID, alsoLoad: alsoLoad)
        try await waitUntil("the terminal session is attached", timeout: .seconds(30)) {
            try await stack.sessions().contains { $0["id"]?.stringValue == Self.sessionID && $0["state"] == "idle" }
        }
        return pi
    }

    /// Alice is on no allowlist. `/relay pair discord docs` in the terminal shows a code; she
    /// claims it in her DM, is let in, her DM watches the terminal session under "docs", and her
    /// next message runs there and is answered in the DM.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func relayPairInTheTerminalBindsTheClaimingChat() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.allowedUsers = []
            try await stack.start(config)
            let pi = try await Self.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel(.alice)

            pi.type("/relay pair discord docs")
            let shown = try await pi.waitToSee("the pairing code") {
                $0["saw"] == "notify" && $0["message"]?.stringValue?.hasPrefix("Pairing code for discord: ") == true
            }
            let message = try #require(shown["message"]?.stringValue)
            let code = try #require(message.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            #expect(message.contains("/pair \(code)") && message.contains("watches this session as \"docs\""), "\(message)")
            #expect(!pi.seen.contains { $0["saw"] == "user_message" }, "the command reached no model")

            try await stack.dm("/pair \(code)", from: .alice)
            try await stack.waitForBotMessage(in: dm, containing: "✅ Paired: this chat now watches the terminal session docs")
            try await pi.waitToSee("the footer name the watching messenger") { $0["saw"] == "status" && $0["text"] == "relay: watching on discord" }

            try await stack.dm("hello from the paired chat", from: .alice)
            try await pi.waitToSee("the chat's prompt in the terminal's pi") {
                $0["saw"] == "user_message" && $0["text"] == "hello from the paired chat"
            }
            try await stack.waitForBotMessage(in: dm, containing: "Echo: hello from the paired chat")
            #expect(pi.seen.filter { $0["saw"] == "extension_error" }.isEmpty, "\(pi.seen)")
        }
    }

    static var fakeExtensions: String { RepoPaths.root + "/Tests/Fakes/pi-extension-host/extensions" }

    /// pi-config's ask_user, loaded beside the relay, asks in the terminal: the DM shows the
    /// question and its options with no buttons and "Answer it in the terminal"; a button-less
    /// card cannot be answered from the chat; the terminal answers and the card closes.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func anotherExtensionsQuestionShowsInTheChatAndClosesWhenTheTerminalAnswers() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await Self.attach(stack, alsoLoad: [Self.fakeExtensions + "/ask-user.ts"])
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(Self.sessionID)])

            try await stack.dm("ask: Which database? | Postgres | SQLite")
            try await pi.waitToSee("the other extension's dialog") { $0["saw"] == "dialog" && $0["title"] == "Which database?" }
            let card = try #require(
                try await stack.waitForBotMessage(in: dm, containing: "Answer it in the terminal.").first, "the question in the DM")
            let text = card["content"]?.stringValue ?? ""
            #expect(text.contains("Which database?") && text.contains("1. Postgres · 2. SQLite"), "\(card)")
            #expect(card["components"]?.arrayValue?.isEmpty ?? true, "no buttons: the chat cannot answer it: \(card)")

            pi.perform(["do": "answer", "value": "SQLite"])
            try await stack.waitForBotMessage(in: dm, containing: "answered in the terminal")
            try await pi.waitToSee("the run end") { $0["saw"] == "run_end" }
            #expect(pi.seen.filter { $0["saw"] == "extension_error" }.isEmpty, "\(pi.seen)")
        }
    }

    /// A chat's `/skill:review args` reaches the terminal's pi as pi's RPC prompt expands it
    /// (spec §11 trap 8); another extension's command is not sent to pi at all.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aSkillPromptFromTheChatIsExpandedAndAnotherExtensionsCommandIsNot() async throws {
        try await StackHome.with { stack in
            let skill = stack.workspace + "/.pi/skills/review"
            try FileManager.default.createDirectory(atPath: skill, withIntermediateDirectories: true)
            try "---\nname: review\ndescription: Review a change.\n---\n\nRead every line of the diff.\n".write(
                toFile: skill + "/SKILL.md", atomically: true, encoding: .utf8)
            try await stack.start()
            let pi = try await Self.attach(stack, alsoLoad: [Self.fakeExtensions + "/bridge.ts"])
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(Self.sessionID)])

            try await stack.dm("/bridge:status")
            try await stack.dm("/skill:review src/app.ts")
            let expanded = try await pi.waitToSee("the expanded skill") { $0["saw"] == "user_message" }
            #expect(
                expanded["text"]?.stringValue
                    == "<skill name=\"review\" location=\"\(skill)/SKILL.md\">\nReferences are relative to \(skill).\n\nRead every line of the diff.\n</skill>\n\nsrc/app.ts",
                "\(expanded)")
            try await pi.waitToSee("the run end") { $0["saw"] == "run_end" }
            try await stack.waitForBotMessage(in: dm, containing: "src/app.ts")
            #expect(
                !pi.seen.contains { $0["saw"] == "user_message" && $0["text"]?.stringValue?.contains("bridge") == true },
                "the other extension's command reached no model: \(pi.seen)")
        }
    }
}
