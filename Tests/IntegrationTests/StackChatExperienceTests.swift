import Foundation
import PiRelaySDK
import Testing

/// Issue 17, part A, as a Discord user meets it: progress modes, `/summary` after a tool-heavy
/// run, the buttons under a long answer, pause and resume, the ⏳ of a queued prompt and `/help`,
/// through the real daemon and plugins, the fake Discord and the fake pi.
@Suite struct StackChatExperienceTests {
    /// A DM watching a new session `api`.
    static func boundDM(_ stack: StackHome) async throws -> String {
        let dm = try await stack.dmChannel()
        _ = try await stack.newSession("api")
        let used = try await stack.command("use", ["session": "api"])
        #expect(used.text.contains("Watching api"), "\(used)")
        return dm
    }

    /// PATCHes of messages in `channel` since `cursor`: the live view edits its message.
    static func edits(_ stack: StackHome, in channel: String, since cursor: Int) async throws -> Int {
        let found = try await stack.fake.wait("for=request&method=PATCH&path=/channels/\(channel)/messages&since=\(cursor)", timeout: 1)
        return found?.arrayValue?.count ?? 0
    }

    /// Waits until the session's run is over and its answer has settled in the DM.
    /// Until the fake Discord saw the ⏳ put on `message` (`added`), or taken off it.
    static func waitForHourglass(_ stack: StackHome, on message: String, added: Bool) async throws {
        _ = try await waitFor(added ? "the ⏳ on the queued prompt" : "the ⏳ comes off", timeout: .seconds(added ? 30 : 60)) { () -> Bool? in
            let reactions = try await stack.fake.get("/reactions")["reactions"]?.arrayValue ?? []
            return reactions.contains { $0["message_id"]?.stringValue == message && ($0["op"] == "add") == added } ? true : nil
        }
    }

    static func settle(_ stack: StackHome) async throws {
        try await stack.waitForState("api", "idle")
        try await Task.sleep(for: .seconds(1))
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func progressModesChangeWhatTheDMShows() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await Self.boundDM(stack)

            // normal: the live view edits its message while the run goes on.
            var cursor = try await stack.fake.cursor
            try await stack.dm("!scenario slow 15 60")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 15", since: cursor)
            try await Self.settle(stack)
            #expect(try await Self.edits(stack, in: dm, since: cursor) > 0, "normal edits a live message")

            // quiet: the answer arrives once, never edited.
            let quiet = try await stack.command("progress", ["mode": "quiet"])
            #expect(quiet.text.contains("now quiet:") && quiet.ephemeral, "\(quiet)")
            cursor = try await stack.fake.cursor
            try await stack.dm("!scenario slow 15 60")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 15", since: cursor)
            try await Self.settle(stack)
            #expect(try await Self.edits(stack, in: dm, since: cursor) == 0, "quiet shows no live view")

            // verbose: tool output under the tool lines.
            _ = try await stack.command("progress", ["mode": "verbose"])
            cursor = try await stack.fake.cursor
            try await stack.dm("!scenario tools")
            try await stack.waitForBotMessage(in: dm, containing: "↳", since: cursor)
            // The final comes after pi's agent_end (formatted, then paced behind the live edits):
            // waited for, so that it does not land after the next step's cursor.
            try await stack.waitForBotMessage(in: dm, containing: "the notes are written", since: cursor)
            try await Self.settle(stack)

            // completion-only: one message at the end, no typing before it.
            _ = try await stack.command("progress", ["mode": "completion-only"])
            cursor = try await stack.fake.cursor
            try await stack.dm("!scenario slow 15 60")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 15", since: cursor)
            try await Self.settle(stack)
            let typing = try await stack.fake.wait("for=request&method=POST&path=/channels/\(dm)/typing&since=\(cursor)", timeout: 1)
            #expect(typing == nil, "completion-only sends no typing: \(String(describing: typing))")
            #expect(try await Self.edits(stack, in: dm, since: cursor) == 0)
            #expect(try await stack.command("progress").text.contains("Progress here: completion-only."))
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func summaryAfterAToolHeavyRunAndTheFullAnswerButtons() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await Self.boundDM(stack)
            var cursor = try await stack.fake.cursor
            try await stack.dm("!scenario tools")
            try await stack.waitForBotMessage(in: dm, containing: "npm test", since: cursor)
            try await stack.waitForState("api", "idle")

            let summary = try await stack.command("summary")
            #expect(summary.text.hasPrefix("api · ") && summary.text.contains("· done"), "\(summary)")
            #expect(summary.text.contains("Tools: 9 calls (bash ×2"), "\(summary)")
            #expect(summary.text.contains("Files written or edited: `src/app.ts`"), "\(summary)")
            #expect(summary.text.contains("`make lint` (exit 2)"), "\(summary)")
            #expect(summary.text.contains("Tokens: ") && summary.text.contains("cost $"), "\(summary)")
            let recent = try await stack.command("recent", ["count": "5"])
            #expect(recent.text.contains("🏁 run ended"), "\(recent)")

            // A long answer comes as a preview plus a file, and the two buttons under it.
            cursor = try await stack.fake.cursor
            try await stack.dm("!scenario text 1500")
            let offer = try #require(
                try await stack.waitForBotMessage(in: dm, containing: "The answer was cut to a preview", since: cursor).first)
            let show = try #require(StackHome.button("Show in chat", in: offer), "\(offer)")
            let download = try #require(StackHome.button("Download .md", in: offer), "\(offer)")
            let offerID = try #require(offer["id"]?.stringValue)

            cursor = try await stack.fake.cursor
            let downloaded = try await stack.reply(to: try await stack.click(download, on: offerID))
            #expect(downloaded.text.contains("answer-2.md"), "\(downloaded)")
            _ = try await waitFor("answer-2.md uploaded to the DM", timeout: .seconds(30)) { () -> Bool? in
                let messages = try await stack.botMessages(dm)
                return messages.contains { "\($0["attachments"] ?? [])".contains("answer-2.md") } ? true : nil
            }

            cursor = try await stack.fake.cursor
            let shown = try await stack.reply(to: try await stack.click(show, on: offerID))
            #expect(shown.text.contains("Shown in"), "\(shown)")
            // The whole answer, in several messages.
            let posted = try await stack.fake.wait("for=message&author=bot&channel_id=\(dm)&since=\(cursor)&count=3", timeout: 60)
            #expect((posted?.arrayValue?.count ?? 0) >= 3, "\(String(describing: posted))")
            let full = try await stack.command("full")
            #expect(full.text.contains("The last answer of api"), "\(full)")
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func pauseAndResumeOnDiscord() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await Self.boundDM(stack)
            let paused = try await stack.command("pause")
            #expect(paused.text.contains("Paused"), "\(paused)")

            var cursor = try await stack.fake.cursor
            try await stack.dm("are you there?")
            try await stack.waitForBotMessage(in: dm, containing: "This chat is paused", since: cursor)
            #expect(stack.piPrompts(containing: "are you there").isEmpty)

            // A run from the terminal while the DM is paused: the DM hears nothing of it.
            cursor = try await stack.fake.cursor
            let sent = try await stack.cli(["send", "api", "!scenario tools", "--wait"])
            #expect(sent.status == 0, "\(sent)")
            try await Task.sleep(for: .milliseconds(500))
            let heard = try await stack.fake.wait("for=message&author=bot&channel_id=\(dm)&since=\(cursor)", timeout: 1)
            #expect(heard == nil, "the paused DM got: \(String(describing: heard))")

            let resumed = try await stack.command("resume")
            #expect(resumed.text.contains("While paused, a run ended"), "\(resumed)")
            #expect(resumed.text.contains("Tools: 9 calls"), "\(resumed)")
            cursor = try await stack.fake.cursor
            try await stack.dm("back again")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: back again", since: cursor)
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQueuedPromptGetsAnHourglassThatComesOffAndHelpListsTheSlashCommands() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await Self.boundDM(stack)
            let help = try await stack.command("help")
            #expect(help.text.contains("/progress [mode] — How much of a run this chat sees"), "\(help)")
            #expect(help.text.contains("/help — "), "\(help)")
            let registered = try await stack.fake.wait("for=request&method=PUT&path=/commands&status=200", timeout: 5)
            #expect(registered != nil)

            // Long enough (10 s) that the next message still finds it running on a loaded machine.
            try await stack.dm("!scenario slow 40 250")
            try await stack.waitForState("api", "busy", timeout: .seconds(30))
            let queued = try await stack.dm("and then the docs")
            let message = try #require(queued["id"]?.stringValue, "\(queued)")
            try await Self.waitForHourglass(stack, on: message, added: true)
            try await Self.waitForHourglass(stack, on: message, added: false)
            let lines = try await stack.botMessages(dm).compactMap { $0["content"]?.stringValue }
            #expect(!lines.contains { $0.contains("Queued as follow-up") }, "the reaction replaces the line: \(lines)")
            try await stack.waitForBotMessage(in: dm, containing: "and then the docs")
        }
    }

    /// A DM bound to `api`, a long run in it, and a message queued behind the run under its ⏳:
    /// the DM and the message's id.
    static func queueBehindARun(_ stack: StackHome) async throws -> (dm: String, message: String) {
        let dm = try await boundDM(stack)
        try await stack.dm("!scenario slow 400 100")
        try await stack.waitForState("api", "busy", timeout: .seconds(30))
        let queued = try await stack.dm("and then the docs")
        let message = try #require(queued["id"]?.stringValue, "\(queued)")
        try await waitForHourglass(stack, on: message, added: true)
        return (dm, message)
    }

    /// pi's queue lives in pi: stopping pi-relayd (and its pis) while a message waits behind a
    /// run loses it. Its ⏳ comes off and the chat is told it did not run, once the daemon is back.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aMessageQueuedWhenTheDaemonStopsIsReportedNotRun() async throws {
        try await StackHome.with { stack in
            let first = try await stack.start()
            let (dm, message) = try await Self.queueBehindARun(stack)
            _ = await first.terminate()
            _ = try await stack.start(freshCommands: false)
            try await stack.waitForBotMessage(in: dm, containing: "Not run: pi-relayd was stopped before pi reached your queued message")
            try await Self.waitForHourglass(stack, on: message, added: false)
        }
    }

    /// The same with the daemon killed (kill -9, an out-of-memory kill): nothing could be said on
    /// the way down, so the waiting prompts are kept on disk and the next start tells their chat.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aMessageQueuedWhenTheDaemonIsKilledIsReportedNotRun() async throws {
        try await StackHome.with { stack in
            let doomed = try await stack.start(doomed: true)
            let (dm, message) = try await Self.queueBehindARun(stack)
            doomed.signal(SIGKILL)
            #expect(await doomed.waitForExit() == .signaled(SIGKILL))
            _ = try await stack.start(freshCommands: false)
            try await stack.waitForBotMessage(in: dm, containing: "Not run: pi-relayd stopped (killed, or the machine went down) before pi")
            try await Self.waitForHourglass(stack, on: message, added: false)
            #expect(!stack.home.read("state/queued-prompts.json").contains("and then the docs"), "told once")
        }
    }

    /// Pings: the agent waiting on a question mentions whoever asked, with Discord's allowed
    /// mentions naming them; `/mentions off` stops it.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQuestionMentionsWhoeverAskedUnlessMentionsAreOff() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await Self.boundDM(stack)
            try await stack.dm("!scenario ui ask-select")
            // The question's card (with its controls), not the live view, which names the tool
            // call's title too and may come first on a loaded machine.
            let asked = try await stack.waitForCard(in: dm, containing: "Pick a colour")
            let content = asked["content"]?.stringValue ?? ""
            #expect(content.hasPrefix("<@\(StackUser.alice.id)> "), "\(asked)")
            #expect(asked["mentions"]?.arrayValue?.isEmpty == false, "Discord pings alice: \(asked)")
            try await stack.dm("red")
            // The card closed (its controls gone), not merely a message naming red: the open card
            // lists it among the options.
            try await stack.waitForBotMessage(in: dm, containing: "answered: red")
            try await Self.settle(stack)

            let off = try await stack.command("mentions", ["state": "off"])
            #expect(off.text.contains("Mentions off"), "\(off)")
            try await stack.dm("!scenario ui ask-select")
            // The first card lost its controls when it was answered: this is the second one.
            let again = try await stack.waitForCard(in: dm, containing: "Pick a colour")
            let text = again["content"]?.stringValue ?? ""
            #expect(text.hasPrefix("❓"), "no mention before the question: \(again)")
            #expect(again["mentions"]?.arrayValue?.isEmpty == true, "\(again)")
        }
    }
}
