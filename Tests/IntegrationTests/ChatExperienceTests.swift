import Foundation
import PiRelaySDK
import Testing

/// Issue 17, part A, in the command layer: progress modes, looking back, pause, the busy
/// acknowledgement, `/help`, pings and the sender prefix, through the real daemon and formatter
/// and the fake messenger (so the same holds on every messenger).
@Suite struct ChatExperienceTests {
    /// A `chat.command` from the test user in the fake messenger's channel.
    static func command(
        _ chat: E2EChatHome, _ name: String, _ args: [String: JSONValue] = [:], channel: String = E2EChatHome.channel
    )
        async throws -> JSONValue
    {
        try await chat.inject("chat.command", ["chat": E2EChatHome.chat(channel), "name": .string(name), "args": .object(args)])
    }

    static func text(_ reply: JSONValue) -> String { reply["text"]?.stringValue ?? "" }

    /// Events the fake messenger recorded after the `skip` first ones.
    static func events(_ chat: E2EChatHome, after skip: Int) -> [JSONValue] { Array(chat.messengerEvents().dropFirst(skip)) }

    /// The run id of the `n`th run of a session (`SESSION-n`).
    static func runID(_ session: String, _ n: Int) -> String { "\(session)-\(n)" }

    @Test func progressModesDecideWhatTheChatIsSent() async throws {
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start()
            let session = try await chat.newBoundSession("demo")
            #expect(Self.text(try await Self.command(chat, "progress")).contains("Progress here: normal."))

            // normal: live views of the run.
            _ = try await chat.say("!scenario slow 12 40")
            _ = try await chat.waitForFinal(1)
            #expect(!chat.lives(runID: Self.runID(session, 1)).isEmpty, "normal shows the live view")

            // quiet: the final answer only.
            #expect(Self.text(try await Self.command(chat, "progress", ["mode": "quiet"])).contains("now quiet:"))
            _ = try await chat.say("!scenario slow 12 40")
            let quiet = try await chat.waitForFinal(2)
            #expect(quiet["runId"]?.stringValue == Self.runID(session, 2))
            #expect(chat.lives(runID: Self.runID(session, 2)).isEmpty, "quiet sends no live view")

            // verbose: tool output under each tool line, in the live view and the answer.
            _ = try await Self.command(chat, "progress", ["mode": "verbose"])
            _ = try await chat.say("!scenario tools")
            let verbose = try await chat.waitForFinal(3)
            let shown = (verbose["chunks"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: "\n")
            #expect(shown.contains("  ↳ `"), "verbose shows tool output previews:\n\(shown)")
            // The live view has them too, while a command still prints.
            _ = try await chat.say("!scenario slow-tool 2000")
            _ = try await chat.waitForFinal(4)
            #expect(
                chat.lives(runID: Self.runID(session, 4)).contains { "\($0)".contains("↳ `step ") }, "\(chat.lives(runID: Self.runID(session, 4)))")

            // completion-only: one message when the run ends, no typing and no live view.
            _ = try await Self.command(chat, "progress", ["mode": "completion-only"])
            let before = chat.messengerEvents().count
            _ = try await chat.say("!scenario slow 12 40")
            let run = Self.runID(session, 5)
            let one = try await waitFor("the completion message") { () -> JSONValue? in
                chat.posts("notice").first { $0["runId"]?.stringValue == run }
            }
            #expect("\(one["text"] ?? "")".contains("chunk 12"), "\(one)")
            try await Task.sleep(for: .milliseconds(300))
            let later = Self.events(chat, after: before)
            #expect(!later.contains { $0["method"] == "chat.typing" || $0["method"] == "chat.live" }, "\(later)")
            #expect(!chat.posts("final").contains { $0["runId"]?.stringValue == run }, "completion-only posts no final")

            #expect(Self.text(try await Self.command(chat, "progress", ["mode": "loud"])).contains("quiet, normal, verbose or completion-only"))
            // Kept per chat, on disk, and read back by the next daemon.
            let saved = try String(contentsOfFile: chat.home.path + "/state/chat-preferences.json", encoding: .utf8)
            #expect(saved.contains("completion-only"), "\(saved)")
            #expect(try await chat.run(["stop"]).status == 0)
            #expect(await daemon.waitForExit() == .exited(0))
            _ = try await chat.start()
            #expect(Self.text(try await Self.command(chat, "progress")).contains("Progress here: completion-only."))
            #expect(Self.text(try await Self.command(chat, "progress", ["mode": "normal"], channel: "c9")).contains("now normal"))
        }
    }

    @Test func summaryRecentAndFullLookBackAtTheLastRun() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start(environment: ["FAKE_MAX_LEN": "300"])
            _ = try await chat.newBoundSession("demo")
            #expect(Self.text(try await Self.command(chat, "summary")).contains("No run of demo has ended yet"))
            _ = try await chat.say("!scenario tools")
            _ = try await chat.waitForFinal(1)

            let summary = Self.text(try await Self.command(chat, "summary"))
            #expect(summary.hasPrefix("demo · "), "\(summary)")
            #expect(summary.contains("· done"), "\(summary)")
            #expect(summary.contains("Tools: 9 calls (bash ×2, read, edit, write, grep, find, ls, frobnicate)"), "\(summary)")
            #expect(summary.contains("Files written or edited: `src/app.ts`"), "\(summary)")
            #expect(summary.contains("`make lint` (exit 2)") && summary.contains("frobnicate"), "\(summary)")
            #expect(summary.contains("Tokens: ") && summary.contains("cost $"), "\(summary)")
            #expect(!summary.contains("Tokens: not reported"), "the fake pi reports usage: \(summary)")

            let recent = Self.text(try await Self.command(chat, "recent", ["count": "40"]))
            #expect(recent.contains("▶ !scenario tools"), "\(recent)")
            #expect(recent.contains("🔧 bash `npm test`") && recent.contains("❌ bash failed"), "\(recent)")
            #expect(recent.contains("🏁 run ended"), "\(recent)")
            let three = Self.text(try await chat.say("/recent 3")["reply"] ?? [:])
            #expect(three.split(separator: "\n").count == 4, "a heading and 3 lines: \(three)")
            #expect(Self.text(try await Self.command(chat, "recent", ["count": "0"])).contains("from 1 to 50"))

            // /full: the whole answer in chat-sized notices.
            let notices = chat.posts("notice").count
            #expect(Self.text(try await Self.command(chat, "full")).contains("The last answer of demo"))
            let full = try await waitFor("the full answer") { () -> [JSONValue]? in
                let all = chat.posts("notice")
                return all.count > notices ? Array(all.dropFirst(notices)) : nil
            }
            #expect(full.allSatisfy { ($0["text"]?.stringValue ?? "").utf16.count <= 300 })

            // A long answer is cut to a preview: the buttons come under it and work.
            _ = try await chat.say("!scenario long")
            let long = try await chat.waitForFinal(2)
            #expect(long["files"] != nil, "the long answer is a preview plus a file: \(long)")
            let offer = try await waitFor("the full-answer buttons") { () -> JSONValue? in
                chat.posts("notice").first { $0["actions"] != nil && "\($0)".contains("full:md:") }
            }
            let ids = (offer["actions"]?.arrayValue?.first?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            let labels = (offer["actions"]?.arrayValue?.first?.arrayValue ?? []).compactMap { $0["label"]?.stringValue }
            #expect(labels == ["Show in chat", "Download .md"], "\(offer)")
            let download = try #require(ids.first { $0.hasPrefix("full:md:") })
            #expect(Self.text(try await Self.command(chat, "action", ["id": .string(download)])).contains("answer-2.md"))
            let file = try await waitFor("the .md file") { chat.posts("file").first { "\($0)".contains("answer-2.md") } }
            let path = try #require(file["files"]?.arrayValue?.first?["path"]?.stringValue)
            let markdown = try String(contentsOfFile: path, encoding: .utf8)
            #expect(markdown.contains("| File"), "the .md keeps the markdown table as written")
            let show = try #require(ids.first { $0.hasPrefix("full:chat:") })
            let count = chat.posts("notice").count
            #expect(Self.text(try await Self.command(chat, "action", ["id": .string(show)])).contains("Shown in"))
            _ = try await waitFor("the answer shown in chat") { chat.posts("notice").count > count + 1 ? true : nil }
        }
    }

    @Test func pauseHoldsDeliveryAndResumeSumsUpWhatWasMissed() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            _ = try await chat.newBoundSession("demo")
            // A second chat watches the same session and goes on prompting.
            let other = "c2"
            _ = try await Self.command(chat, "use", ["session": "demo"], channel: other)
            #expect(Self.text(try await Self.command(chat, "pause")).contains("Paused"))
            #expect(Self.text(try await Self.command(chat, "pause")).contains("paused already"))
            let mark = chat.messengerEvents().count

            let refused = try await chat.say("are you there?")
            #expect(refused["status"] == "paused", "\(refused)")
            #expect(Self.text(refused["reply"] ?? [:]).contains("/resume"))
            #expect(chat.piCommands("prompt").isEmpty, "a paused chat's prompt reaches no one")
            // Nor do its /steer, /followup and /to: their answers would not come back here.
            for (name, args) in [("steer", ["text": "x"]), ("followup", ["text": "y"]), ("to", ["session": "demo", "text": "z"])]
                as [(String, [String: JSONValue])]
            {
                let sent = Self.text(try await Self.command(chat, name, args))
                #expect(sent.contains("This chat is paused: nothing was sent to demo"), "\(name): \(sent)")
            }
            #expect(chat.piCommands("prompt").isEmpty, "a paused chat's commands reach no one")

            _ = try await chat.say("!scenario tools", channel: other)
            let final = try await chat.waitForFinal(1)
            #expect(final["target"]?["channel"]?.stringValue == other, "only the chat that is not paused: \(final)")
            try await Task.sleep(for: .milliseconds(500))
            let toPaused = Self.events(chat, after: mark).filter { $0["params"]?["target"]?["channel"]?.stringValue == E2EChatHome.channel }
            #expect(toPaused.isEmpty, "the paused chat got nothing: \(toPaused)")

            let resumed = Self.text(try await Self.command(chat, "resume"))
            #expect(resumed.contains("While paused, a run ended"), "\(resumed)")
            #expect(resumed.contains("Tools: 9 calls"), "\(resumed)")
            #expect(Self.text(try await Self.command(chat, "resume")).contains("not paused"))
            let again = try await chat.say("hello again")
            #expect(again["status"] == "prompted", "\(again)")
            _ = try await waitFor("the resumed chat gets its answer") {
                chat.posts("final").contains { $0["target"]?["channel"]?.stringValue == E2EChatHome.channel } ? true : nil
            }
        }
    }

    @Test func aPromptQueuedBehindARunIsAcknowledgedAndItsMarkComesOff() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            _ = try await chat.newBoundSession("demo")
            _ = try await chat.say("!scenario slow 40 50")
            _ = try await waitFor("the run is under way") { chat.messengerEvents().contains { $0["method"] == "chat.live" } ? true : nil }
            let messageID = "m-queued-1"
            let queued = try await chat.inject(
                "chat.message", ["chat": E2EChatHome.chat(), "messageId": .string(messageID), "text": "and then the docs", "attachments": []])
            #expect(queued["status"] == "queued", "\(queued)")
            #expect(Self.text(queued["reply"] ?? [:]) == "Queued as follow-up for demo.")
            #expect(queued["reaction"] == "⏳", "\(queued)")
            let react = try await waitFor("the ⏳ comes off when pi takes the prompt", timeout: .seconds(60)) { () -> JSONValue? in
                chat.messengerEvents().first { $0["method"] == "chat.react" }?["params"]
            }
            #expect(react["messageId"]?.stringValue == messageID && react["remove"] == true && react["emoji"] == "⏳", "\(react)")
            // It came off when the follow-up started, before its answer.
            _ = try await waitFor("the follow-up is answered", timeout: .seconds(60)) {
                chat.posts("final").contains { "\($0)".contains("and then the docs") } ? true : nil
            }
        }
    }

    /// pi-rpc spec §2: an extension's `/command` runs at once, even while pi streams, and no
    /// user message ever shows it; a template or skill is expanded before it queues. Neither
    /// can be told by its text when pi takes it, so a slash prompt to a busy session gets no ⏳
    /// that would stay for good, nor a "Not run" when the queue empties, which a user would
    /// answer by sending it again.
    @Test func aSlashPromptWhileBusyGetsNoHourglassThatStays() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            _ = try await chat.newBoundSession("demo")
            _ = try await chat.say("!scenario slow 40 50")
            _ = try await waitFor("the run is under way") { chat.messengerEvents().contains { $0["method"] == "chat.live" } ? true : nil }
            let sent = try await chat.inject(
                "chat.message", ["chat": E2EChatHome.chat(), "messageId": "m-slash", "text": "/foo bar", "attachments": []])
            #expect(sent["reaction"] == nil, "\(sent)")
            #expect(
                Self.text(sent["reply"] ?? [:])
                    == "Sent to demo while it works: an extension's /command runs now, a template or skill after this run.",
                "\(sent)")
            let reset = try await chat.say("/reset")
            #expect(Self.text(reset["reply"] ?? [:]) == "demo starts a new conversation.", "\(reset)")
            try await Task.sleep(for: .seconds(1))
            #expect(!chat.posts().contains { "\($0)".contains("Not run") }, "\(chat.posts())")
            #expect(!chat.messengerEvents().contains { $0["method"] == "chat.react" }, "no ⏳ to take off")
        }
    }

    /// A run waiting for an answer is still a run: other text sent meanwhile waits behind it as a
    /// follow-up (pi-rpc spec §5), and the chat is told so, as for any busy session.
    @Test func aPromptWhileTheRunWaitsForAnAnswerIsQueuedBehindIt() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            _ = try await chat.newBoundSession("demo")
            _ = try await chat.say("!scenario ui ask-select 0")
            _ = try await waitFor("the question is asked") { chat.posts("question").isEmpty ? nil : true }
            let queued = try await chat.inject(
                "chat.message", ["chat": E2EChatHome.chat(), "messageId": "m-during-question", "text": "actually use blue-ish", "attachments": []])
            #expect(queued["status"] == "queued", "\(queued)")
            #expect(Self.text(queued["reply"] ?? [:]) == "Queued as follow-up for demo.")
            #expect(queued["reaction"] == "⏳", "\(queued)")
        }
    }

    @Test func helpPingsAndTheSenderPrefix() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.extra = ["chat:", "  senderPrefix: \"[{name}] \"", "notify:", "  longRunSeconds: 0"]
            _ = try await chat.start(config)
            _ = try await chat.newBoundSession("demo")

            let help = Self.text(try await Self.command(chat, "help"))
            #expect(help.contains("/progress quiet|normal|verbose|completion-only — How much of a run this chat sees"), "\(help)")
            #expect(help.contains("/summary — ") && help.contains("/pause — ") && help.contains("/help — "), "\(help)")

            // A shared channel: pi is told who wrote it.
            _ = try await chat.say("hello there")
            let prompts = try await chat.waitForPrompts(1)
            #expect(prompts[0]["message"]?.stringValue == "[tester] hello there", "\(prompts[0])")
            // Every run is long with longRunSeconds 0: the requester is mentioned.
            let final = try await chat.waitForFinal(1)
            #expect(final["mentionUser"]?.stringValue == E2EChatHome.user, "\(final)")

            // Blocked on a question: whoever asked is mentioned where they asked (a DM here, where
            // no prefix is put before the prompt), and only there.
            let dm: JSONValue = ["channel": "d1", "user": .string(E2EChatHome.user), "userName": "tester", "dm": true]
            _ = try await chat.inject("chat.command", ["chat": dm, "name": "use", "args": ["session": "demo"]])
            _ = try await chat.inject("chat.message", ["chat": dm, "messageId": "q-1", "text": "!scenario ui confirm", "attachments": []])
            let asked = try await waitFor("the question in both chats") { () -> [JSONValue]? in
                let all = chat.posts("question")
                return all.count >= 2 ? all : nil
            }
            let inDM = try #require(asked.first { $0["target"]?["channel"] == "d1" })
            let inChannel = try #require(asked.first { $0["target"]?["channel"]?.stringValue == E2EChatHome.channel })
            #expect(inDM["mentionUser"]?.stringValue == E2EChatHome.user, "\(inDM)")
            #expect(inChannel["mentionUser"] == nil, "\(inChannel)")
            _ = try await chat.inject("chat.message", ["chat": dm, "messageId": "q-2", "text": "yes", "attachments": []])
            _ = try await waitFor("the answered run ends") { chat.posts("final").count >= 3 ? true : nil }

            #expect(Self.text(try await Self.command(chat, "mentions", ["state": "off"])).contains("Mentions off"))
            _ = try await chat.say("quietly now")
            let unmentioned = try await chat.waitForFinal(5)
            #expect(unmentioned["mentionUser"] == nil, "\(unmentioned)")
            #expect(Self.text(try await Self.command(chat, "mentions")).contains("off"))
        }
    }
}
