import Foundation
import PiRelaySDK
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 15 through everything real: the daemon, the formatter, attachments and telegram plugins
/// against the fake Telegram Bot API, the fake pi behind every session. Named Stack… so that a
/// whole sanitizer run leaves it out, as it does the other stack suites.
@Suite struct StackTelegramTests {
    /// The Bot API's Update: after a week without updates, the next `update_id` is chosen at
    /// random, so it may lie below the position the plugin saved (here 900,000,000, the fake's
    /// numbers starting at 512,000,001). Telegram then answers a poll past its last update with
    /// its queue's head (the fake does too). Those updates are taken in and the position starts
    /// again from them: before, each was skipped as seen, and the bot never heard anyone again.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func updatesNumberedAnewAreHeard() async throws {
        try await TelegramStack.with { stack in
            let state = stack.home.pluginStateDir("telegram")
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try #"{"lastUpdate": 900000000, "pending": [], "seen": []}"#.write(toFile: state + "/inbox.json", atomically: true, encoding: .utf8)
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg", timeout: 30)
            try await stack.dm("still there")
            try await stack.waitForBotMessage(in: chat, containing: "Echo: still there", timeout: 30)
            // The polls made before the first update came asked past Telegram's last update; the
            // fake counts each. None since: the position is Telegram's again.
            let stale = try await stack.fake.violations().filter { $0["kind"] == "offset_in_future" }.count
            #expect(stale >= 1)
            try await stack.dm("and now")
            try await stack.waitForBotMessage(in: chat, containing: "Echo: and now", timeout: 30)
            #expect(try await stack.fake.violations().filter { $0["kind"] == "offset_in_future" }.count == stale)
            #expect(try await stack.fake.violations().allSatisfy { $0["kind"] == "offset_in_future" })
            _ = try await stack.fake.post("/clear")
        }
    }

    /// PROTOCOL.md, `chat.post`: `mentionUser` is the user to ping when a long run ends. The
    /// answer went into the live view's message, and an edit notifies nobody (Bot API §8), so a
    /// line that does follows it, once; a run nobody is pinged for gets none.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aLongRunsAnswerShownInPlaceIsFollowedByALineThatNotifies() async throws {
        try await TelegramStack.with { stack in
            try await stack.start(extra: "notify:\n  longRunSeconds: 0\n")
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.dm("/mentions off")
            try await stack.waitForBotMessage(in: chat, containing: "Mentions off")
            try await stack.dm("!scenario slow 12 100")
            try await stack.waitForBotMessage(in: chat, containing: "chunk 12")
            try await Task.sleep(for: .seconds(1))
            #expect(try await stack.botMessages(chat).filter { $0["text"]?.stringValue?.contains("Done") == true }.isEmpty, "mentions are off")
            try await stack.dm("/mentions on")
            try await stack.waitForBotMessage(in: chat, containing: "Mentions on")
            try await stack.dm("!scenario slow 14 100")
            let final = try #require(try await stack.waitForBotMessage(in: chat, containing: "chunk 14").first)
            #expect((final["edit_count"]?.intValue ?? 0) >= 1, "the answer was shown in place: \(final)")
            let done = try await stack.waitForBotMessage(in: chat, containing: "⬆ Done")
            #expect(done.count == 1 && (done[0]["message_id"]?.intValue ?? 0) > (final["message_id"]?.intValue ?? .max), "\(done)")
        }
    }

    /// Bot API §14: a 429 holds the chat it names. One on `setMyCommands` (a chat-less call,
    /// whose wait runs to minutes after a few restarts) held every chat, and came before the
    /// first poll: nobody was heard or answered for its whole wait. Now the menu waits on its own.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aRateLimitOnTheCommandMenuHoldsUpNoChat() async throws {
        try await TelegramStack.with { stack in
            _ = try await stack.fake.post("/rate_limit", ["method": "setMyCommands", "retry_after": 40, "count": 1])
            let asked = ContinuousClock.now
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg", timeout: 30)
            try await stack.dm("hello")
            try await stack.waitForBotMessage(in: chat, containing: "Echo: hello", timeout: 30)
            #expect(ContinuousClock.now - asked < .seconds(20), "started, heard and answered within the menu's 40 s wait")
            let holds = (try? String(contentsOfFile: stack.home.pluginStateDir("telegram") + "/holds.json", encoding: .utf8)) ?? ""
            #expect(holds.contains("#setMyCommands") && !holds.contains("\"*\""), "the menu's own hold, kept: \(holds)")
        }
    }

    /// A private chat: /new binds it, a prompt's answer grows in one message edited in place
    /// (typing shown meanwhile), and ends as the final answer in that same message.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aPrivatePromptStreamsIntoOneMessageAndFinishes() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")

            try await stack.dm("!scenario slow 40 100")
            let final = try #require(try await stack.waitForBotMessage(in: chat, containing: "chunk 40").first)
            #expect((final["edit_count"]?.intValue ?? 0) >= 2, "the answer grew in place: \(final)")
            #expect(final["text"]?.stringValue?.contains("chunk 1 ") == true, "\(final)")
            let answers = try await stack.botMessages(chat).filter { $0["text"]?.stringValue?.contains("chunk 1 ") == true }
            #expect(answers.count == 1, "one message for the whole answer: \(answers)")
            let actions = try await stack.fake.get("/actions?chat_id=\(chat)")["actions"]?.arrayValue ?? []
            #expect(actions.contains { $0["action"] == "typing" }, "typing… while the agent worked")
            let commands = try await stack.fake.get("/commands")["commands"]?.arrayValue ?? []
            #expect(commands.count >= 2, "the command menu for private chats and groups: \(commands)")

            // Telegram's first word to a bot: help; with a payload, a pairing claim (StackPairingTests),
            // which an allowed user does not need.
            try await stack.dm("/start")
            // /help lists Telegram's own menu (its hello's commands), one line each.
            try await stack.waitForBotMessage(in: chat, containing: "Commands here:\n/sessions — List sessions and pick one")
            try await stack.waitForBotMessage(in: chat, containing: "/summary — A short account of the last run")
            try await stack.dm("/start abc123")
            try await stack.waitForBotMessage(in: chat, containing: "You can already use this bot")
        }
    }

    /// A question with buttons: Yes answers it, the buttons go, and the run finishes with the
    /// answer. Mallory is refused, once, however often she writes, and her press does nothing.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQuestionIsAnsweredByAButtonAndAnIntruderIsRefused() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.dm("!scenario ui confirm")
            let asked = try await stack.waitForCard(in: chat, containing: "Apply the migration?")

            let refused = try await stack.press("Yes", on: asked, from: TelegramStack.mallory)
            let refusedID = try #require(refused["callback_query_id"]?.stringValue, "\(refused)")
            let refusal = try #require(try await stack.fake.wait("for=callback_answer&id=\(refusedID)"))
            #expect(refusal["text"] == "Not authorized." && refusal["show_alert"] == true, "\(refusal)")

            let pressed = try await stack.press("Yes", on: asked)
            let answered = try #require(try await stack.fake.wait("for=callback_answer&id=\(pressed["callback_query_id"]?.stringValue ?? "")"))
            #expect(answered["late"] == false, "\(answered)")
            try await stack.waitForBotMessage(in: chat, containing: "confirm answer: true")
            // The card closes after the chat's questions and finals (QuestionClosings).
            var closed: JSONValue?
            try await waitUntil("the card closed") {
                closed = try await stack.fake.get("/message?chat_id=\(chat)&message_id=\(asked["message_id"]?.intValue ?? 0)")["message"]
                return closed?["reply_markup"] == nil || closed?["reply_markup"] == .null
            }
            #expect(closed?["text"]?.stringValue?.contains("answered") == true, "the card says what came of it: \(String(describing: closed))")

            for text in ["let me in", "please"] { try await stack.dm(text, from: TelegramStack.mallory) }
            try await stack.waitForBotMessage(in: TelegramStack.mallory.id, containing: "Not authorized.")
            try await Task.sleep(for: .seconds(1))
            #expect(try await stack.botMessages(TelegramStack.mallory.id).count == 1, "refused once, not once per message")
            #expect(stack.piPrompts(containing: "let me in").isEmpty)
        }
    }

    /// A picture and a text file sent in Telegram reach pi: the picture as an image, the file's
    /// text inlined; a file over Telegram's 20 MB download limit is named, with the reason.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aPictureAndATextFileReachPi() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")

            let png = Data(E2ESamples.png).base64EncodedString()
            // The file's download answered 502 once (§14: retry 5xx with backoff): the picture
            // still reaches pi, where it was left out.
            _ = try await stack.fake.post("/fail_downloads", ["count": 1])
            try await stack.dm("what is in this picture?", extra: ["photo": ["content_b64": .string(png), "width": 64, "height": 48]])
            let prompt = try await waitFor("the picture's prompt") { stack.piPrompts(containing: "what is in this picture?").first }
            let images = prompt["images"]?.arrayValue ?? []
            #expect(images.count == 1 && images.first?["mimeType"] == "image/png", "\(prompt)")

            // An album comes as several messages with one media_group_id, the caption on one of
            // them (spec §5): pi gets one prompt with every picture, not one per picture.
            for caption in ["compare these three", "", ""] {
                try await stack.dm(caption, extra: ["photo": ["content_b64": .string(png), "width": 64, "height": 48], "media_group_id": "13579"])
            }
            let album = try await waitFor("the album's prompt") { stack.piPrompts(containing: "compare these three").first }
            #expect(album["images"]?.arrayValue?.count == 3, "\(album)")
            // Two files of one album may have one name: each is read, neither overwrites the other.
            for (index, words) in ["the first copy", "the second copy"].enumerated() {
                let notes = Data("# Notes\n\(words)\n".utf8).base64EncodedString()
                try await stack.dm(
                    index == 0 ? "compare both notes" : "",
                    extra: [
                        "document": ["file_name": "notes.md", "mime_type": "text/markdown", "content_b64": .string(notes)], "media_group_id": "24680",
                    ])
            }
            let both = try await waitFor("both notes in one prompt") { stack.piPrompts(containing: "compare both notes").first }
            let read = both["message"]?.stringValue ?? ""
            #expect(read.contains("the first copy") && read.contains("the second copy"), "\(read)")

            let notes = Data("# Notes\nship it on friday\n".utf8).base64EncodedString()
            try await stack.dm(
                "read my notes", extra: ["document": ["file_name": "notes.md", "mime_type": "text/markdown", "content_b64": .string(notes)]])
            let withFile = try await waitFor("the notes in the prompt") { stack.piPrompts(containing: "read my notes").first }
            #expect(withFile["message"]?.stringValue?.contains("ship it on friday") == true, "\(withFile)")
            let pictures = stack.piPrompts(containing: "").filter { $0["images"]?.arrayValue?.isEmpty == false }
            #expect(pictures.count == 2, "the picture and the album, nothing more: \(pictures.map { $0["message"] ?? .null })")

            try await stack.dm("and this video", extra: ["document": ["file_name": "big.mp4", "size": 30_000_000]])
            let big = try await waitFor("the big file named") { stack.piPrompts(containing: "and this video").first }
            #expect(big["message"]?.stringValue?.contains("up to 20 MB") == true, "\(big)")

            // A video, an audio file and a round video note are files as a document is (spec §5):
            // the agent reads the caption with what became of the file, never the caption alone.
            let clip = Data("not really an mp4".utf8).base64EncodedString()
            try await stack.dm("why does this crash?", extra: ["video": ["file_name": "crash.mp4", "content_b64": .string(clip), "duration": 4]])
            let video = try await waitFor("the video's prompt") { stack.piPrompts(containing: "why does this crash?").first }
            #expect(video["message"]?.stringValue?.contains("crash.mp4") == true, "\(video)")
            try await stack.dm("", extra: ["video_note": ["content_b64": .string(clip), "duration": 2]])
            try await waitFor("the video note named") { stack.piPrompts(containing: "video-note-").first }
            // An animation comes with the same file as its document too: one file, not two.
            try await stack.dm("this spinner", extra: ["animation": ["file_name": "spin.mp4", "content_b64": .string(clip)]])
            let spinner = try await waitFor("the animation's prompt") { stack.piPrompts(containing: "this spinner").first }
            let named = (spinner["message"]?.stringValue ?? "").components(separatedBy: "spin.mp4").count - 1
            #expect(named == 1, "one attachment: \(spinner)")

            // Out: a picture as a photo, a text file as a document, the bytes as they are.
            try Data(E2ESamples.png).write(to: URL(fileURLWithPath: stack.workspace + "/chart.png"))
            try "all green\n".write(toFile: stack.workspace + "/report.txt", atomically: true, encoding: .utf8)
            try await stack.dm("/file chart.png")
            try await stack.dm("/file report.txt")
            let sent = try await waitFor("both files in the chat") { () -> [JSONValue]? in
                let files = try await stack.botMessages(chat).filter { $0["photo"] != .null || $0["document"] != .null }
                return files.count >= 2 ? files : nil
            }
            #expect(sent.contains { ($0["photo"]?.arrayValue?.isEmpty == false) }, "the picture as a photo: \(sent)")
            #expect(sent.contains { $0["document"]?["file_name"] == "report.txt" && $0["document"]?["size"] == 10 }, "\(sent)")
        }
    }

    /// /new in a forum supergroup opens a topic bound to the new session: a message in the topic
    /// (a reply to nobody, no mention) is its prompt, the answer goes to the topic.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func newInAForumOpensATopicBoundToTheSession() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let group = "-1001234567890"
            let project = stack.workspace + "/proj"
            try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
            try await stack.say("/new \(project) proj", in: group, forum: true)
            let topic = try await waitFor("a topic for proj") { () -> JSONValue? in
                try await stack.fake.get("/topics?chat_id=\(group)")["topics"]?.arrayValue?.first { $0["name"] == "proj" }
            }
            let thread = try #require(topic["message_thread_id"]?.intValue, "\(topic)")
            try await stack.say("/status", in: group, topic: thread, forum: true)
            try await stack.say("@pirelay_test_bot hello topic", in: group, topic: thread, forum: true)
            let answer = try #require(try await stack.waitForBotMessage(in: group, containing: "Echo: hello topic").first)
            #expect(answer["message_thread_id"]?.intValue == thread, "the answer is in the topic: \(answer)")
        }
    }
}

extension StackTelegramTests {
    /// The telegram plugin killed with SIGKILL mid-answer, and a message written while it is
    /// down: after the restart that message reaches pi exactly once, every update is confirmed,
    /// and the answer in flight ends as one final message, not two.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func killedMidStreamLosesNoUpdateAndDeliversTheFinalOnce() async throws {
        try await TelegramStack.with { stack in
            let daemon = try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.dm("!scenario slow 60 100")
            try await stack.waitForBotMessage(in: chat, containing: "chunk 5 ")
            let before = try #require(try await daemon.waitForRunning("telegram").pid)
            kill(before, SIGKILL)
            try await stack.dm("written while the plugin was down")
            let after = try await waitFor("a new telegram plugin", timeout: .seconds(60)) { () -> Int32? in
                let pid = try await daemon.waitForRunning("telegram", timeout: .seconds(60)).pid
                return pid != before ? pid : nil
            }
            #expect(after != before)
            try await stack.waitForBotMessage(in: chat, containing: "chunk 60")
            _ = try await waitFor("the message written meanwhile reaches pi") {
                stack.piPrompts(containing: "written while the plugin was down").first
            }
            try await stack.waitForBotMessage(in: chat, containing: "Echo: written while the plugin was down")
            try await Task.sleep(for: .seconds(2))
            #expect(stack.piPrompts(containing: "written while the plugin was down").count == 1, "acted on once")
            let finals = try await stack.botMessages(chat).filter { $0["text"]?.stringValue?.contains("chunk 60") == true }
            #expect(finals.count == 1, "the final answer once: \(finals.map { $0["text"] ?? .null })")
            let started = try await stack.botMessages(chat).filter { $0["text"]?.stringValue?.contains("chunk 1 ") == true }
            #expect(started.count == 1, "the live message was taken over, not left behind: \(started.map { $0["text"] ?? .null })")
            let updates = try await stack.fake.get("/updates")["updates"]?.arrayValue ?? []
            let messages = updates.filter { $0["type"] == "message" }
            #expect(!messages.isEmpty && messages.allSatisfy { $0["confirmed"] == true }, "\(messages)")
        }
    }

    /// A plugin restarted mid-answer shows the answer's progress at once, not after the rest of the
    /// live interval the old instance started: with views at most every 10 s, the new instance
    /// edits the answer within 2.5 s of its first call to Telegram, where waiting for the interval
    /// would take about 8 s. Timed from that call rather than from the restart: the new process's
    /// own start took up to 3 s in a fresh-clone CI, with six daemons on two cores.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aRestartedPluginShowsTheRunningAnswerAtOnce() async throws {
        try await TelegramStack.with { stack in
            let daemon = try await stack.start(section: ["liveIntervalMs: 10000"])
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.dm("!scenario slow 300 100")
            try await stack.waitForBotMessage(in: chat, containing: "chunk 1 ")
            try await Task.sleep(for: .seconds(1))
            let before = try #require(try await daemon.waitForRunning("telegram").pid)
            let cursor = try await stack.fake.cursor
            kill(before, SIGKILL)
            // The fake stamps each call when it arrives; any that arrived after the kill is the
            // new instance's.
            let killed = Date().timeIntervalSince1970
            let (first, edit) = try await waitFor("the new instance's first edit", timeout: .seconds(30)) { () -> (Double, Double)? in
                let calls = (try await stack.fake.get("/requests?since=\(cursor)")["requests"]?.arrayValue ?? [])
                    .filter { ($0["time"]?.doubleValue ?? 0) > killed }
                guard let edit = calls.first(where: { $0["method"]?.stringValue == "editMessageText" && $0["status"]?.intValue == 200 }),
                    let editTime = edit["time"]?.doubleValue, let first = calls.compactMap({ $0["time"]?.doubleValue }).min()
                else { return nil }
                return (first, editTime)
            }
            #expect(edit - first < 2.5, "the view waited for the old instance's interval: \(edit - first) s after the first call")
        }
    }

    /// An answer longer than one message while it streams: the live view posts its finished
    /// chunks as messages of their own, and the final turns those same messages into its chunks
    /// instead of starting over below them, so every part is shown exactly once.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aLongStreamedAnswerIsShownOnce() async throws {
        try await TelegramStack.with { stack in
            // Twelve paragraphs of ~560 characters: two Telegram messages, streamed over ~20 s.
            try await stack.start(environment: ["FAKE_PI_DELTA_MS": "40"])
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.dm("!scenario paragraphs 12 80")
            try await stack.waitForBotMessage(in: chat, containing: "Part 12.", timeout: 120)
            // The final follows the last live view at Telegram's pace (a write a second).
            try await Task.sleep(for: .seconds(6))
            let texts = try await stack.botMessages(chat).compactMap { $0["text"]?.stringValue }
            for part in 1...12 {
                let holding = texts.filter { $0.contains("Part \(part).") }
                #expect(holding.count == 1, "part \(part) shown once: \(holding.map { $0.prefix(40) })")
            }
        }
    }

    /// A storm of 429s: every write is held for its retry_after (the fake records any request
    /// made inside an announced window), and the answer still arrives whole.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aStormOf429sIsWaitedOut() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.fake.post("/rate_limit", ["chat_id": .string(chat), "retry_after": 2, "count": 3])
            try await stack.dm("!scenario slow 20 50")
            try await stack.waitForBotMessage(in: chat, containing: "chunk 20", timeout: 90)
            let status = try await stack.json("plugin", "call", "telegram", "status")
            #expect(status["api"]?["rateLimited"]?.intValue ?? 0 >= 3, "each forced 429 was seen and waited out: \(status)")
        }
    }
}

extension StackTelegramTests {
    /// A long answer (code in four languages, a table, emoji, CJK) comes as Telegram HTML the
    /// fake's parser accepts: a preview within the limits plus the whole answer as a `.md`
    /// document.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aLongAnswerIsAPreviewAndADocument() async throws {
        try await TelegramStack.with { stack in
            try await stack.start(extra: "formatter:\n  maxChunks: 2\n")
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.dm("!scenario long")
            try await stack.waitForBotMessage(in: chat, containing: "let me know if you want me to open a PR", timeout: 90)
            let html = try await stack.botMessages(chat).filter { $0["parse_mode"] == "HTML" }
            #expect(
                html.contains { $0["html"]?.stringValue?.contains("<pre><code class=\"language-swift\">") == true }, "code blocks as Telegram HTML")
            try await stack.dm("!scenario text 2500")
            let document: JSONValue
            do {
                document = try await waitFor("the answer as a document", timeout: .seconds(90)) { () -> JSONValue? in
                    try await stack.botMessages(chat).first { $0["document"]?["file_name"]?.stringValue?.hasSuffix(".md") == true }
                }
            } catch {
                throw StackFailure("\(error)\n\(stack.home.pluginLog("telegram").suffix(4000))\n\(try await stack.botMessages(chat))")
            }
            #expect((document["document"]?["size"]?.intValue ?? 0) > 10000, "the whole answer: \(document)")
        }
    }
}

extension StackTelegramTests {
    /// Alice starts session `name` in basic group `group`; returns her message, to send more
    /// from her there.
    static func startSession(_ stack: TelegramStack, named name: String, inGroup group: String) async throws -> JSONValue {
        let body: JSONValue = [
            "from": ["id": .string(TelegramStack.alice.id), "first_name": "alice", "username": "alice"],
            "chat": ["id": .string(group), "type": "group", "title": "team"], "text": .string("/new \(stack.workspace) \(name)"),
        ]
        try await stack.fake.post("/messages", body)
        try await stack.waitForBotMessage(in: group, containing: "Started \(name)")
        return body
    }

    /// A group upgraded to a supergroup changes id: the answer meant for the old id is sent to
    /// the new one (migrate_to_chat_id followed), and the new id is bound to the same session,
    /// so the supergroup's messages reach it.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anUpgradedGroupIsFollowedToItsNewID() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let group = "-4001"
            var body = try await Self.startSession(stack, named: "grp", inGroup: group)
            let moved = try await stack.fake.post("/migrate", ["chat_id": .string(group)])
            let supergroup = try #require(moved["new_chat_id"].flatMap { $0.stringValue ?? $0.intValue.map(String.init) }, "\(moved)")

            #expect(try await stack.cli(["send", "grp", "after the upgrade"]).status == 0)
            try await stack.waitForBotMessage(in: supergroup, containing: "Echo: after the upgrade")
            body["chat"] = ["id": .string(supergroup), "type": "supergroup", "title": "team"]
            body["text"] = "@pirelay_test_bot from the supergroup"
            try await stack.fake.post("/messages", body)
            try await stack.waitForBotMessage(in: supergroup, containing: "Echo: from the supergroup")
        }
    }
}

extension StackTelegramTests {
    /// A group upgraded while an answer streams into it, before the plugin has read the
    /// upgrade's service message (here it never does: the fake drops it at once). Telegram
    /// answers the next edit with migrate_to_chat_id (Bot API spec §15); the answer goes on in
    /// the supergroup, where that 400 was taken as permanent and the final answer dropped.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aGroupUpgradedMidAnswerStillGetsTheAnswer() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let group = "-4002"
            var body = try await Self.startSession(stack, named: "up", inGroup: group)
            body["text"] = "@pirelay_test_bot !scenario slow 40 100"
            try await stack.fake.post("/messages", body)
            try await stack.waitForBotMessage(in: group, containing: "chunk 3")
            _ = try await stack.fake.post("/settings", ["message_retention_s": 0.0])
            let moved = try await stack.fake.post("/migrate", ["chat_id": .string(group)])
            _ = try await stack.fake.post("/settings", ["message_retention_s": 86400.0])
            let supergroup = try #require(moved["new_chat_id"].flatMap { $0.stringValue ?? $0.intValue.map(String.init) }, "\(moved)")
            let final = try #require(try await stack.waitForBotMessage(in: supergroup, containing: "chunk 40", timeout: 90).first)
            #expect(final["text"]?.stringValue?.contains("chunk 1 ") == true, "the whole answer: \(final)")
        }
    }

    /// What gets between the plugin and its updates: a webhook someone set (removed at start,
    /// pending updates kept), a long poll cut off mid-wait (polled again), and another program
    /// polling the same token (409: said plainly in the log, retried with backoff). Through all
    /// of it no message is lost.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aWebhookACutPollAndASecondPollerLoseNothing() async throws {
        try await TelegramStack.with { stack in
            try await stack.fake.post("/webhook", ["url": "https://example.invalid/hook"])
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.start()
            try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "Started tg")
            let webhook = try await stack.fake.get("/updates")
            #expect(webhook["poll"] != .null, "polling despite the webhook: \(webhook)")

            let cut = try await stack.fake.post("/cut_polls")
            #expect(cut["cut"]?.intValue ?? 0 >= 1, "\(cut)")
            try await stack.dm("after the cut")
            try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "Echo: after the cut")

            // Another program polls with the same token: Telegram ends our poll with a 409.
            let url = try #require(URL(string: stack.fake.apiBase + "/bot\(TelegramStack.token)/getUpdates?timeout=1"))
            _ = try? await URLSession.shared.data(from: url)
            try await waitUntil("the conflict is in the plugin's log", timeout: .seconds(30)) {
                stack.home.pluginLog("telegram").contains("another program is polling Telegram with this bot token")
            }
            try await stack.dm("after the conflict")
            try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "Echo: after the conflict", timeout: 90)
            #expect(stack.piPrompts(containing: "after the conflict").count == 1)
        }
    }
}

extension StackTelegramTests {
    /// A token Telegram refuses (revoked at BotFather): the plugin stops as not configured, says
    /// why in `pi-relayd plugins`, and is not restarted in a loop; the token is in no output.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aRevokedTokenLeavesThePluginNotConfigured() async throws {
        try await TelegramStack.with { stack in
            let daemon = try await stack.start(token: "7000000001:REVOKEDtelegramSecretQ9x8c7v6b5n", polling: false)
            let info = try await daemon.waitForPlugin("telegram", "not configured", timeout: .seconds(60)) { $0.state == "not-configured" }
            #expect(info.reason.contains("refused the bot token") && info.restarts == 0, "\(info)")
            #expect(!info.reason.contains("REVOKED") && !stack.home.pluginLog("telegram").contains("REVOKED"), "\(info)")
        }
    }

    /// telegram-bot-api.md §1: a revoked token is answered 401. Revoked after a command was taken
    /// in and before its reply went out (a 429 holds the reply for 5 s): the plugin ends as not
    /// configured at that write, not at its next poll 50 s later; the reply is kept, and once the
    /// token works again and the plugin is restarted, it is shown, once.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aReplyTheRevokedTokenKeptFromTheChatIsShownOnceItWorksAgain() async throws {
        try await TelegramStack.with { stack in
            let daemon = try await stack.start(section: ["pollTimeoutSeconds: 50"])
            let chat = TelegramStack.alice.id
            let since = try await stack.fake.cursor
            try await stack.fake.post("/rate_limit", ["chat_id": .string(chat), "retry_after": 5, "count": 1])
            try await stack.dm("/sessions")
            guard try await stack.fake.wait("for=request&method=sendMessage&status=429&since=\(since)") != nil else {
                throw StackFailure("the reply was not held by the 429:\n\(stack.home.pluginLog("telegram").suffix(3000))")
            }
            try await stack.fake.post("/settings", ["token": "7000000001:RESETtelegramSecretQ9x8c7v6b5n4m3"])
            let info = try await daemon.waitForPlugin("telegram", "not configured", timeout: .seconds(20)) { $0.state == "not-configured" }
            #expect(info.reason.contains("401") && info.reason.contains("TELEGRAM_BOT_TOKEN"), "\(info)")
            #expect(try await stack.botMessages(chat).isEmpty, "nothing could be posted")

            try await stack.fake.post("/settings", ["token": .string(TelegramStack.token)])
            #expect(try await stack.cli(["plugins", "restart", "telegram"]).status == 0)
            try await stack.waitForBotMessage(in: chat, containing: "No sessions on")
            try await Task.sleep(for: .seconds(2))
            let shown = try await stack.botMessages(chat).filter { $0["text"]?.stringValue?.contains("No sessions on") == true }
            #expect(shown.count == 1, "\(shown)")
        }
    }

    /// A user who blocked the bot: Telegram's 403 is logged once, what is sent there is dropped
    /// (not retried forever, not sent again into the 403), the chat is listed in the plugin's
    /// status, and once the user writes again the bot answers there again.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aChatThatBlockedTheBotIsDroppedUntilItWritesAgain() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")
            try await stack.fake.post("/block", ["chat_id": .string(chat)])
            #expect(try await stack.cli(["send", "tg", "while you were away"]).status == 0)
            try await waitUntil("the 403 in the plugin's log", timeout: .seconds(30)) {
                stack.home.pluginLog("telegram").contains("Telegram refuses our messages")
            }
            let status = try await stack.json("plugin", "call", "telegram", "status")
            #expect(status["blockedChats"]?[chat] != nil, "\(status)")
            #expect(stack.home.pluginLog("telegram").components(separatedBy: "Telegram refuses our messages").count == 2, "logged once")
            // A file for it is dropped too, and its spool copy with it (protocol §8).
            try Data("for nobody\n".utf8).write(to: URL(fileURLWithPath: stack.workspace + "/dropped.txt"))
            #expect(try await stack.cli(["file", "tg", "dropped.txt"]).status == 0)
            try await waitUntil("the file's spool copy is gone", timeout: .seconds(30)) {
                let spooled = try FileManager.default.contentsOfDirectory(atPath: stack.home.path + "/state/spool")
                return !spooled.contains { $0.hasSuffix("dropped.txt") }
            }

            try await stack.dm("I am back")
            try await stack.waitForBotMessage(in: chat, containing: "Echo: I am back")
        }
    }
}
