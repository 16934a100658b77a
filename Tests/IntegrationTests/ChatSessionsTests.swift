import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 17 points 3, 7 and 9 through the command layer, with the fake messenger: several
/// sessions in one chat, guided answers, and the vision check.
@Suite struct ChatSessionsTests {
    /// Two sessions in one chat: numbered with their markers, `/use N` switches the active one
    /// and keeps the other watched, posts carry the marker and label, `/alias` names one for the
    /// chat, `/to` reaches either by number or alias, `/forget N` takes an exited one away.
    /// `pi-relayd emit SESSION TEXT`: a line from the terminal in the session's chats, and
    /// nothing to pi; a session no chat watches says so.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func emitPostsALineWithoutPromptingPi() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            _ = try await chat.newBoundSession("api")
            let prompts = chat.piCommands("prompt").count
            let emitted = try await chat.run(["emit", "api", "deploy", "done"])
            #expect(emitted.status == 0 && emitted.stdout.contains("posted to 1 chat(s)"), "\(emitted)")
            try await waitUntil("the line in the chat") {
                chat.posts("notice").contains { $0["text"]?.stringValue?.contains("📣 api: deploy done") == true }
            }
            #expect(chat.piCommands("prompt").count == prompts)
            _ = try await chat.run(["new", "--cwd", chat.home.root, "--name", "lonely", "--json"])
            let nobody = try await chat.home.cli.run(["emit", "lonely", "hello"])
            #expect(nobody.status != 0 && nobody.stderr.contains("no chat watches session lonely"), "\(nobody)")
            // An empty line is refused before anything is sent.
            let blank = try await chat.home.cli.run(["emit", "api", " "])
            #expect(blank.status != 0 && blank.stderr.contains("emit needs a line to post"), "\(blank)")
            #expect(!chat.posts("notice").contains { $0["text"]?.stringValue?.hasSuffix("api: ") == true })
        }
    }

    /// The list says which machine it is (`machine:`), and so do `sessions --json` and `status`.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func oneChatWatchesTwoSessions() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.extra = ["machine: laptop"]
            _ = try await chat.start(config)
            let web = chat.home.root + "/web"
            try FileManager.default.createDirectory(atPath: web, withIntermediateDirectories: true)
            _ = try await chat.newBoundSession("api")
            _ = try await chat.run(["new", "--cwd", web, "--name", "web", "--json"])

            let used = try await chat.say("/use 2")
            #expect(used["reply"]?["text"] == "Watching web.", "\(used)")
            let list = try #require(try await chat.say("/sessions")["reply"]?["text"]?.stringValue)
            let lines = list.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(list)")
            #expect(lines[0] == "Sessions on laptop:", "\(list)")
            #expect(lines[1].hasPrefix("🔵 1. **api**") && lines[1].contains("watched here"), "\(list)")
            #expect(lines[2].hasPrefix("🟢 2. **web**") && lines[2].contains("active here"), "\(list)")
            let listed = try await chat.run(["sessions", "--json"]).json().arrayValue ?? []
            #expect(listed.count == 2 && listed.allSatisfy { $0["machine"] == "laptop" }, "\(listed)")
            let status = try await chat.run(["status", "--json"]).json()
            #expect(status["machine"] == "laptop" && status["sessions"]?[0]?["machine"] == "laptop", "\(status)")
            #expect(try await chat.run(["status"]).stdout.contains("running on laptop, pid"))
            #expect(lines.dropFirst().allSatisfy { $0.contains("/claude-") && $0.contains(" · idle · ") }, "\(list)")
            let markers = try await chat.run(["sessions", "--json"]).json().arrayValue?.compactMap { $0["marker"]?.stringValue }
            #expect(markers == ["🔵", "🟢"])

            let named = try await chat.say("/alias phone")
            #expect(named["reply"]?["text"]?.stringValue?.contains("is called phone") == true, "\(named)")
            _ = try await chat.say("hello web")
            let first = try await chat.waitForFinal(1)
            #expect(first["chunks"]?[0]?.stringValue?.hasPrefix("🟢 phone\n") == true, "\(first)")
            #expect(first["chunks"]?[0]?.stringValue?.contains("Echo: hello web") == true, "\(first)")

            let sent = try await chat.say("/to 1 hello api")
            #expect(sent["reply"]?["text"]?.stringValue?.hasPrefix("Sent to api") == true, "\(sent)")
            let second = try await chat.waitForFinal(2)
            #expect(second["chunks"]?[0]?.stringValue?.hasPrefix("🔵 api\n") == true, "\(second)")
            _ = try await chat.say("/to phone via the alias")
            let third = try await chat.waitForFinal(3)
            #expect(third["chunks"]?[0]?.stringValue?.hasPrefix("🟢 phone\n") == true, "\(third)")
            #expect(third["chunks"]?[0]?.stringValue?.contains("Echo: via the alias") == true, "\(third)")
            // An alias that is another session's name would hide it here; a number past the list
            // picks no session (not the one whose id or pid starts so).
            let shadow = try await chat.say("/alias api")
            #expect(shadow["reply"]?["text"]?.stringValue?.contains("another session is already called api") == true, "\(shadow)")
            let prompts = chat.piCommands("prompt").count
            let past = try await chat.say("/to 7 nobody")
            #expect(past["reply"]?["text"]?.stringValue?.contains("no session #7 here: /sessions lists 2") == true, "\(past)")
            #expect(chat.piCommands("prompt").count == prompts)

            // A running session is not offline: /forget refuses it.
            let refused = try await chat.say("/forget 1")
            #expect(refused["reply"]?["text"]?.stringValue?.contains("is running, not offline") == true, "\(refused)")
            // Its pi exits: now it is offline and can be forgotten.
            let api = try #require(try await chat.run(["sessions", "--json"]).json().arrayValue?.first { $0["name"] == "api" })
            let pid = try #require(api["pid"]?.intValue)
            kill(Int32(pid), SIGKILL)
            try await waitUntil("api has exited", timeout: .seconds(30)) {
                try await chat.run(["sessions", "--json"]).json().arrayValue?.contains { $0["name"] == "api" && $0["state"] == "exited" } == true
            }
            let forgot = try await chat.say("/forget 1")
            #expect(forgot["reply"]?["text"] == "Forgot 🔵 api.", "\(forgot)")
            #expect(try await chat.run(["sessions", "--json"]).json().arrayValue?.count == 1)
            // Watching one session again, posts are as they always were.
            _ = try await chat.say("only web now")
            let fourth = try await chat.waitForFinal(4)
            #expect(fourth["chunks"]?[0]?.stringValue?.hasPrefix("Echo: only web now") == true, "\(fourth)")
        }
    }

    static let options = "Which colour?\n1. red\n2. green"

    /// The buttons posted under the last final that ended with a choice.
    static func choiceButtons(_ chat: E2EChatHome, count: Int) async throws -> [JSONValue] {
        try await waitFor("guided buttons #\(count)", timeout: .seconds(60)) { () -> [JSONValue]? in
            let offers = chat.posts("reply").filter { $0["actions"]?[0]?[0]?["id"]?.stringValue?.hasPrefix("ga:") == true }
            return offers.count >= count ? offers[count - 1]["actions"]?.arrayValue?.flatMap { $0.arrayValue ?? [] } : nil
        }
    }

    func press(_ chat: E2EChatHome, _ id: String) async throws -> JSONValue {
        try await chat.inject("chat.command", ["chat": E2EChatHome.chat(), "name": "action", "args": ["id": .string(id)]])
    }

    /// A final ending with numbered options gets a button per option and Custom answer; `2`
    /// answers, a button answers, an unclear reply is asked back and then sent as the answer,
    /// Custom answer takes the next message whole, and long text is a prompt as it is.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func guidedAnswers() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            _ = try await chat.newBoundSession("g")

            _ = try await chat.say(Self.options)
            _ = try await chat.waitForFinal(1)
            let buttons = try await Self.choiceButtons(chat, count: 1)
            #expect(buttons.map { $0["label"]?.stringValue ?? "" } == ["1. red", "2. green", "Custom answer"], "\(buttons)")
            let byNumber = try await chat.say("2")
            #expect(byNumber["status"] == "answered", "\(byNumber)")
            try await waitUntil("pi got the answer", timeout: .seconds(30)) {
                chat.piCommands("prompt").contains { $0["message"] == "Answer: 2. green" }
            }
            _ = try await chat.waitForFinal(2)

            // The answer's own final ends with no choice: a "2" now is a prompt like any other.
            _ = try await chat.say(Self.options)
            _ = try await chat.waitForFinal(3)
            let second = try await Self.choiceButtons(chat, count: 2)
            let red = try #require(second.first?["id"]?.stringValue)
            _ = try await press(chat, red)
            try await waitUntil("the button answered", timeout: .seconds(30)) {
                chat.piCommands("prompt").contains { $0["message"] == "Answer: 1. red" }
            }
            _ = try await chat.waitForFinal(4)
            let stale = try await press(chat, red)
            #expect(stale["text"]?.stringValue?.contains("no longer open") == true, "\(stale)")

            _ = try await chat.say(Self.options)
            _ = try await chat.waitForFinal(5)
            _ = try await Self.choiceButtons(chat, count: 3)
            let unclear = try await chat.say("2 and 3")
            #expect(unclear["status"] == "held", "\(unclear)")
            let asked = unclear["reply"]?["actions"]?[0]?.arrayValue ?? []
            #expect(asked.map { $0["label"]?.stringValue ?? "" } == ["Answer", "Send as prompt", "Cancel"], "\(unclear)")
            #expect(!chat.piCommands("prompt").contains { $0["message"]?.stringValue?.contains("2 and 3") == true }, "held, not sent")
            _ = try await press(chat, try #require(asked.first?["id"]?.stringValue))
            try await waitUntil("the held reply went as the answer", timeout: .seconds(30)) {
                chat.piCommands("prompt").contains { $0["message"] == "Answer: 2 and 3" }
            }
            _ = try await chat.waitForFinal(6)

            _ = try await chat.say(Self.options)
            _ = try await chat.waitForFinal(7)
            let fourth = try await Self.choiceButtons(chat, count: 4)
            let custom = try #require(fourth.last?["id"]?.stringValue)
            let told = try await press(chat, custom)
            #expect(told["text"] == "Send your answer as your next message.", "\(told)")
            _ = try await chat.say("neither: a dark blue that matches the logo, if we have one")
            try await waitUntil("the custom answer", timeout: .seconds(30)) {
                chat.piCommands("prompt").contains { $0["message"] == "Answer: neither: a dark blue that matches the logo, if we have one" }
            }
            _ = try await chat.waitForFinal(8)

            _ = try await chat.say(Self.options)
            _ = try await chat.waitForFinal(9)
            _ = try await Self.choiceButtons(chat, count: 5)
            let long = "first tell me which colours the design system already defines"
            let prompted = try await chat.say(long)
            #expect(prompted["status"] == "prompted", "\(prompted)")
            try await waitUntil("a long reply is a prompt as it is", timeout: .seconds(30)) {
                chat.piCommands("prompt").contains { $0["message"]?.stringValue == long }
            }
        }
    }

    /// A model without image input (a custom model of pi's models.json): an image with text
    /// sends the text alone and says why, naming the model; an image alone sends nothing.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func imagesAreNotSentToAModelWithoutImageInput() async throws {
        try await E2EChatHome.with { chat in
            try Data(Self.textOnlyModels.utf8).write(to: URL(fileURLWithPath: chat.agentDir + "/models.json"))
            var routes: [String: E2EHTTPRoute] = [:]
            routes["/shot.png"] = .file(body: E2ESamples.png, contentType: "image/png")
            let server = try E2EHTTPServer(routes: routes)
            defer { server.stop() }
            let picture: JSONValue = ["url": .string(server.url("/shot.png")), "filename": "shot.png", "contentType": "image/png"]
            _ = try await chat.start()
            _ = try await chat.newBoundSession("v")

            // A model that reads images gets them.
            _ = try await chat.say("what is this?", attachments: [picture])
            _ = try await chat.waitForFinal(1)
            #expect(chat.piCommands("prompt").last?["images"]?.arrayValue?.count == 1)

            let switched = try await chat.say("/model ollama/llama3.1:8b")
            #expect(switched["reply"]?["text"]?.stringValue?.contains("now uses ollama/llama3.1:8b") == true, "\(switched)")
            let withText = try await chat.say("and this one?", attachments: [picture])
            let note = withText["reply"]?["text"]?.stringValue ?? ""
            #expect(note.contains("ollama/llama3.1:8b takes no image input") && note.contains("Your text was sent"), "\(withText)")
            _ = try await chat.waitForFinal(2)
            let sent = try #require(chat.piCommands("prompt").last)
            #expect(sent["message"]?.stringValue?.hasPrefix("and this one?") == true, "\(sent)")
            #expect(sent["images"] == nil, "no image reached pi: \(sent)")

            // From the terminal too: the text goes, the image does not, and the note says why.
            let shot = chat.home.scratch + "/shot.png"
            try chat.writeFile(shot, E2ESamples.png)
            let fromCLI = try await chat.run(["send", "v", "from the terminal", "--image", shot, "--json"]).json()
            #expect(
                fromCLI["notes"]?[0]?.stringValue?.contains("ollama/llama3.1:8b takes no image input") == true, "\(fromCLI)")
            _ = try await chat.waitForFinal(3)
            let cliPrompt = try #require(chat.piCommands("prompt").last)
            #expect(cliPrompt["message"] == "from the terminal" && cliPrompt["images"] == nil, "\(cliPrompt)")

            let before = chat.piCommands("prompt").count
            let alone = try await chat.say("", attachments: [picture])
            #expect(alone["status"] == "refused", "\(alone)")
            #expect(alone["reply"]?["text"]?.stringValue?.contains("Nothing was sent") == true, "\(alone)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(chat.piCommands("prompt").count == before)
        }
    }

    static let textOnlyModels = """
        {"providers":{"ollama":{"baseUrl":"http://127.0.0.1:11434/v1","api":"openai-completions","apiKey":"ollama",
         "models":[{"id":"llama3.1:8b","name":"Llama 3.1 8B"}]}}}
        """
}

extension ChatSessionsTests {
    /// What a chat watches, its aliases and the sessions' markers are saved: after a restart the
    /// list reads the same and posts still carry the marker and alias.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func watchedSessionsAliasesAndMarkersSurviveARestart() async throws {
        try await E2EChatHome.with { chat in
            let first = try await chat.start()
            let web = chat.home.root + "/web"
            try FileManager.default.createDirectory(atPath: web, withIntermediateDirectories: true)
            _ = try await chat.newBoundSession("api")
            _ = try await chat.run(["new", "--cwd", web, "--name", "web", "--json"])
            _ = try await chat.say("/use web")
            _ = try await chat.say("/alias phone")
            let before = try #require(try await chat.say("/sessions")["reply"]?["text"]?.stringValue)
            _ = try await chat.run(["stop"])
            #expect(await first.waitForExit() == .exited(0))

            _ = try await chat.start()
            try await waitUntil("both sessions are back", timeout: .seconds(60)) {
                try await chat.run(["sessions", "--json"]).json().arrayValue?.allSatisfy { $0["state"] == "idle" } == true
            }
            let after = try #require(try await chat.say("/sessions")["reply"]?["text"]?.stringValue)
            let shape = { (text: String) in text.split(separator: "\n").dropFirst().map { $0.split(separator: " · ").prefix(1).joined() } }
            #expect(shape(after) == shape(before) && shape(after) == ["🔵 1. **api**", "🟢 2. **phone** (web)"], "\(before)\n\(after)")
            #expect(after.contains("active here") && after.contains("watched here"), "\(after)")
            _ = try await chat.say("/to 1 still here")
            let final = try await chat.waitForFinal(1)
            #expect(final["chunks"]?[0]?.stringValue?.hasPrefix("🔵 api\n") == true, "\(final)")
        }
    }
}
