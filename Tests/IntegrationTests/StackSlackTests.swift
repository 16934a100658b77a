import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 18 through everything real: the daemon, the formatter, attachments and slack plugins
/// against the fake Slack (Web API and Socket Mode), the fake pi behind every session. Named
/// Stack… so that a whole sanitizer run leaves it out, as it does the other stack suites.
@Suite struct StackSlackTests {
    /// A DM: /pi new binds it, a prompt's answer grows in one message updated in place and ends
    /// as the final answer in that same message; the prompt shows ⏳ meanwhile, then ✅; every
    /// envelope was acknowledged in time, and the bot's own posts and edits were not taken as
    /// prompts.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aDMPromptStreamsIntoOneMessageAndFinishes() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")

            let prompt = try await stack.say("!scenario slow 40 150")
            let ts = try #require(prompt["ts"]?.stringValue)
            _ = try #require(try await stack.fake.wait("for=reaction&channel=\(dm)&ts=\(ts)&name=hourglass_flowing_sand"), "⏳ while working")
            let final = try #require(try await stack.waitForBotMessage(in: dm, containing: "chunk 40").first)
            #expect((final["edit_count"]?.intValue ?? 0) >= 2, "the answer grew in place: \(final)")
            #expect(final["text"]?.stringValue?.contains("chunk 1 ") == true, "\(final)")
            let answers = try await stack.botMessages(dm).filter { $0["text"]?.stringValue?.contains("chunk 1 ") == true }
            #expect(answers.count == 1, "one message for the whole answer: \(answers)")
            let done = try #require(try await stack.fake.wait("for=reaction&channel=\(dm)&ts=\(ts)&name=white_check_mark"), "✅ at the end")
            #expect(done["reactions"]?["hourglass_flowing_sand"] == nil, "⏳ gone: \(done)")
            #expect(stack.piPrompts(containing: "!scenario slow").count == 1, "the prompt once, the bot's own echoes ignored")
            let envelopes = try await stack.envelopes()
            #expect(!envelopes.isEmpty && envelopes.allSatisfy { $0["acked_at"] != .null && $0["late"] == false }, "\(envelopes)")
        }
    }

    /// The prompt's ⏳ and ✅ are only signs: a rate limit on reactions holds up no prompt and no
    /// answer. With reactions.add held for 20 s by a 429, a second message still reaches pi and
    /// is answered at once, and the reactions follow once the hold ends.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aRateLimitOnReactionsHoldsUpNoPrompt() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            try await stack.fake.post("/rate_limit", ["method": "reactions.add", "retry_after": 20, "count": 1])
            let first = try await stack.say("first")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: first")
            let start = ContinuousClock.now
            try await stack.say("second")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: second", timeout: 30)
            #expect(ContinuousClock.now - start < .seconds(8), "the second message waited for the first one's ⏳")
            let ts = try #require(first["ts"]?.stringValue)
            _ = try #require(try await stack.fake.wait("for=reaction&channel=\(dm)&ts=\(ts)&name=white_check_mark", timeout: 60), "✅ after the hold")
        }
    }

    /// An answer longer than one Slack message while it streams: the live view posts its
    /// finished chunks as messages of their own, and the final turns those same messages into its
    /// chunks instead of starting over below them, so every part is shown exactly once.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aLongStreamedAnswerIsShownOnce() async throws {
        try await SlackStack.with { stack in
            // Twelve paragraphs of ~560 characters: three Slack messages, streamed over ~20 s.
            try await stack.start(environment: ["FAKE_PI_DELTA_MS": "40"])
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            let prompt = try await stack.say("!scenario paragraphs 12 80")
            let ts = try #require(prompt["ts"]?.stringValue)
            _ = try #require(try await stack.fake.wait("for=reaction&channel=\(dm)&ts=\(ts)&name=white_check_mark", timeout: 120), "✅ at the end")
            let texts = try await stack.botMessages(dm).compactMap { $0["text"]?.stringValue }
            for part in 1...12 {
                let holding = texts.filter { $0.contains("Part \(part).") }
                #expect(holding.count == 1, "part \(part) shown once: \(holding.map { $0.prefix(40) })")
            }
        }
    }

    /// slack-api.md §5/§6: `text` over 4,000 characters is `msg_too_long`, a section's over
    /// 3,000 `invalid_blocks`; the fake counts code points. Devanagari takes two or more code
    /// points a letter (`क्षि` is four), so a live view cut by letters came out over the limit and
    /// was refused at every view. Cut by UTF-16 units (never fewer than code points), every
    /// view and the final fit.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aLongAnswerInDevanagariFitsSlacksLimits() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            // 1,500 letters of four code points each, and a space after each: 7,500 code points.
            let prompt = try await stack.say(String(repeating: "क्षि ", count: 1500))
            let ts = try #require(prompt["ts"]?.stringValue)
            _ = try #require(try await stack.fake.wait("for=reaction&channel=\(dm)&ts=\(ts)&name=white_check_mark", timeout: 60), "✅ at the end")
            let texts = try await stack.botMessages(dm).compactMap { $0["text"]?.stringValue }.filter { $0.contains("क्षि") }
            #expect(texts.allSatisfy { $0.unicodeScalars.count <= 4000 }, "\(texts.map(\.unicodeScalars.count))")
            #expect(texts.joined().components(separatedBy: "क्षि").count - 1 == 1500, "every letter shown: \(texts.map(\.unicodeScalars.count))")
            let calls = try await stack.fake.get("/calls")["calls"]?.arrayValue ?? []
            let refused = calls.filter { ["msg_too_long", "invalid_blocks"].contains($0["error"]?.stringValue ?? "") }
            #expect(refused.isEmpty, "no live view, final or block over Slack's limits: \(refused)")
        }
    }

    /// `/pi sessions` answers with the command layer's list and its buttons; `/pi new` in a
    /// channel opens a thread bound to the new session, where a reply without a mention is its
    /// prompt and the answer goes to the thread. A plain channel message without a mention is
    /// not for the bot.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func slashCommandsAndANewSessionInAThread() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let channel = "C0TEAM01"
            let project = stack.workspace + "/proj"
            try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
            try await stack.say("hello everyone", in: channel)
            try await stack.command("new \(project) proj", in: channel)
            let parent = try #require(try await stack.waitForBotMessage(in: channel, containing: "🧵").first)
            #expect(parent["thread_ts"] == nil, "the thread's parent is in the channel: \(parent)")
            let thread = try #require(parent["ts"]?.stringValue)
            let started = try #require(try await stack.waitForBotMessage(in: channel, containing: "Started proj").first)
            #expect(started["thread_ts"]?.stringValue == thread, "the reply is the thread's first message: \(started)")
            try await stack.say("hello thread", in: channel, thread: thread)
            let answer = try #require(try await stack.waitForBotMessage(in: channel, containing: "Echo: hello thread").first)
            #expect(answer["thread_ts"]?.stringValue == thread, "the answer is in the thread: \(answer)")
            #expect(stack.piPrompts(containing: "hello everyone").isEmpty, "no mention, not for the bot")

            try await stack.command("sessions")
            let list = try #require(try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "proj").first)
            #expect(list["blocks"]?.arrayValue?.contains { $0["type"] == "actions" } == true, "the sessions as buttons: \(list)")
        }
    }

    /// `/pi` in a channel nobody invited the bot to: Slack delivers the command, but the bot
    /// may not post there (slack-api.md §1, §9 `not_in_channel`). The answer comes in the
    /// user's DM with how to invite the bot; once invited, answers come in the channel.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aCommandInAChannelTheBotIsNotInIsAnsweredInADMWithHowToInviteIt() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let channel = "C0NOTIN1"
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "Started sl")
            try await stack.command("sessions", in: channel, botNotMember: true)
            let told = try #require(try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "/invite").first)
            let text = told["text"]?.stringValue ?? ""
            #expect(text.contains("<#\(channel)>"), "names the channel: \(text)")
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "sl", count: 2)

            // `/pi new` there: bound in the channel, every answer would be refused; the session
            // goes to the DM, which says why.
            let project = stack.workspace + "/proj"
            try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
            try await stack.command("new \(project) proj", in: "C0NOTIN2", botNotMember: true)
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "<#C0NOTIN2>")
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "Started proj")
            try await stack.say("hello proj")
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "Echo: hello proj")
            let last = try await stack.cli(["last", "proj"])
            #expect(last.stdout.contains("Echo: hello proj"), "the DM is bound to the new session: \(last)")

            // Someone not allowed, there: Slack shows a `/pi` nobody answered as failed, and the
            // ephemeral refusal cannot go where the bot is not (§9), so it goes to their DM.
            try await stack.command("sessions", from: SlackStack.mallory, in: channel, botNotMember: true)
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.mallory), containing: "Not authorized.")

            _ = try await stack.fake.post("/invite", ["channel": .string(channel)])
            try await stack.command("sessions", in: channel)
            let shown = try await stack.waitForEphemeral(to: SlackStack.alice.id, containing: "sl")
            #expect(shown.contains { $0["channel"]?.stringValue == channel }, "answered in the channel: \(shown)")
        }
    }

    /// `/pi` typed in a DM between two people (Slack gives that DM's `D…` id, slack-api.md §4) or
    /// in a private channel the bot was not added to: the bot has no access there (§9
    /// `channel_not_found`). The answers come in the bot's own DM with the user, and a session
    /// `/pi new` starts from the other DM is bound to the bot's DM, where its output can go.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aCommandInADMBetweenPeopleOrAPrivateChannelIsAnsweredInTheBotsDM() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            let project = stack.workspace + "/other"
            try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
            try await stack.command("new \(project) other", in: "D0HUMANS1", botNotMember: true)
            try await stack.waitForBotMessage(in: dm, containing: "cannot post in the conversation")
            try await stack.waitForBotMessage(in: dm, containing: "Started other")
            try await stack.say("hello other")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: hello other")

            let privateProject = stack.workspace + "/private"
            try FileManager.default.createDirectory(atPath: privateProject, withIntermediateDirectories: true)
            try await stack.command("new \(privateProject) priv", in: "G0PRIVATE1", botNotMember: true)
            try await stack.waitForBotMessage(in: dm, containing: "<#G0PRIVATE1>")
            try await stack.waitForBotMessage(in: dm, containing: "Started priv")

            // Someone not allowed, in a DM between people: refused where the bot may post.
            let mallory = SlackStack.mallory
            try await stack.command("sessions", from: mallory, in: "D0HUMANS2", botNotMember: true)
            try await stack.waitForBotMessage(in: SlackStack.dm(mallory), containing: "Not authorized.")

            // Paired there with a code for a session: the bot's DM is the chat that watches it.
            let terminal = try PairingTerminal(stack.home, messenger: "slack", options: ["--yes", "--session", "other", "--label", "work"])
            let code = try #require(try await terminal.code()["code"]?.stringValue)
            try await stack.command("pair \(code)", from: mallory, in: "D0HUMANS2", botNotMember: true)
            try await stack.waitForBotMessage(in: SlackStack.dm(mallory), containing: "this chat now watches work")
            _ = try await terminal.finish()
            try await stack.say("hello from mallory", from: mallory)
            try await stack.waitForBotMessage(in: SlackStack.dm(mallory), containing: "Echo: hello from mallory")
        }
    }

    /// A question with buttons: Mallory's click is refused (ephemeral), Alice's Yes answers it,
    /// the message then says who answered and has no buttons, and the run finishes.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQuestionIsAnsweredByAButtonAndAnIntruderIsRefused() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            try await stack.say("!scenario ui confirm")
            let asked = try await stack.waitForCard(in: dm, containing: "Apply the migration?")

            try await stack.click("Yes", on: asked, from: SlackStack.mallory)
            try await stack.waitForEphemeral(to: SlackStack.mallory.id, containing: "Not authorized.")
            try await stack.click("Yes", on: asked)
            try await stack.waitForBotMessage(in: dm, containing: "confirm answer: true")
            let closed = try #require(try await stack.botMessages(dm).first { $0["ts"] == asked["ts"] })
            #expect(closed["text"]?.stringValue?.contains("<@\(SlackStack.alice.id)>") == true, "who answered: \(closed)")
            #expect(closed["blocks"]?.arrayValue?.contains { $0["type"] == "actions" } != true, "the buttons are gone: \(closed)")

            for text in ["let me in", "please"] { try await stack.say(text, from: SlackStack.mallory) }
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.mallory), containing: "Not authorized.")
            try await Task.sleep(for: .seconds(1))
            #expect(try await stack.botMessages(SlackStack.dm(SlackStack.mallory)).count == 1, "refused once, not once per message")
            #expect(stack.piPrompts(containing: "let me in").isEmpty)
            try await stack.command("sessions", from: SlackStack.mallory, in: "C0TEAM01")
            try await stack.waitForEphemeral(to: SlackStack.mallory.id, containing: "Not authorized.")
        }
    }

    /// A text file sent in Slack reaches pi (downloaded with the bot token), and a long answer
    /// comes as a preview plus the whole answer uploaded as a `.md` file.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aFileInAndALongAnswerOutAsAFile() async throws {
        try await SlackStack.with { stack in
            try await stack.start(extra: "formatter:\n  maxChunks: 2\n")
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            let notes = Data("# Notes\nship it on friday\n".utf8).base64EncodedString()
            try await stack.say(
                "read my notes", extra: ["files": [["name": "notes.md", "mimetype": "text/markdown", "content_b64": .string(notes)]]])
            let withFile = try await waitFor("the notes in the prompt") { stack.piPrompts(containing: "read my notes").first }
            #expect(withFile["message"]?.stringValue?.contains("ship it on friday") == true, "\(withFile)")

            try await stack.say("!scenario text 2500")
            let shared = try await waitFor("the answer as a file", timeout: .seconds(90)) { () -> JSONValue? in
                try await stack.botMessages(dm).flatMap { $0["files"]?.arrayValue ?? [] }.first { $0["name"]?.stringValue?.hasSuffix(".md") == true }
            }
            let file = try await stack.fake.get("/files/\(shared["id"]?.stringValue ?? "")")
            #expect((file["length"]?.intValue ?? 0) > 10000 && file["completed"] == true, "the whole answer: \(file)")
        }
    }

    /// The slack plugin killed with SIGKILL mid-answer, and a message written while it is down:
    /// after the restart that message reaches pi exactly once, the answer in flight ends as one
    /// final message, and no envelope sat unacknowledged on an open socket past 3 s.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func killedMidStreamLosesNothingAndDeliversTheFinalOnce() async throws {
        try await SlackStack.with { stack in
            let daemon = try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            try await stack.say("!scenario slow 60 100")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 5 ")
            let before = try #require(try await daemon.waitForRunning("slack").pid)
            kill(before, SIGKILL)
            try await stack.say("written while the plugin was down")
            let after = try await waitFor("a new slack plugin", timeout: .seconds(60)) { () -> Int32? in
                let pid = try await daemon.waitForRunning("slack", timeout: .seconds(60)).pid
                return pid != before ? pid : nil
            }
            #expect(after != before)
            try await stack.waitForBotMessage(in: dm, containing: "chunk 60", timeout: 90)
            try await stack.waitForBotMessage(in: dm, containing: "Echo: written while the plugin was down", timeout: 90)
            try await Task.sleep(for: .seconds(4))
            #expect(stack.piPrompts(containing: "written while the plugin was down").count == 1, "acted on once")
            let finals = try await stack.botMessages(dm).filter { $0["text"]?.stringValue?.contains("chunk 60") == true }
            #expect(finals.count == 1, "the final answer once: \(finals.map { $0["text"] ?? .null })")
            let started = try await stack.botMessages(dm).filter { $0["text"]?.stringValue?.contains("chunk 1 ") == true }
            #expect(started.count == 1, "the live message was taken over, not left behind")
            let late = try await stack.envelopes().filter { $0["late"] == true }
            #expect(late.isEmpty, "no envelope unacknowledged past 3 s on an open socket: \(late)")
        }
    }

    /// A storm of 429s on chat.update and chat.postMessage: each is waited out for its
    /// Retry-After (the fake records any call made inside an announced window) and the answer
    /// still arrives whole, as does a post throttled with an HTTP 200 `rate_limited`; a
    /// `disconnect` warning meanwhile loses nothing.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aStormOf429sAndADisconnectLoseNothing() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            try await stack.fake.post("/rate_limit", ["method": "chat.update", "retry_after": 2, "count": 3])
            try await stack.fake.post("/rate_limit", ["method": "chat.postMessage", "retry_after": 1, "count": 2])
            // And a post throttled without a 429: tried again, not dropped as refused.
            try await stack.fake.post("/rate_limit", ["method": "chat.postMessage", "status": 200, "count": 1])
            // Long enough (12 s) for the live view to reach its edits: a final that came sooner
            // would take the place of the waiting live post, and no chat.update would be made.
            try await stack.say("!scenario slow 60 200")
            try await stack.fake.post("/disconnect", ["reason": "warning", "close_after": 3])
            try await stack.say("after the warning")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 60", timeout: 90)
            try await stack.waitForBotMessage(in: dm, containing: "Echo: after the warning", timeout: 90)
            let status = try await stack.json("plugin", "call", "slack", "status")
            #expect(status["api"]?["rateLimited"]?.intValue ?? 0 >= 5, "each forced 429 was seen and waited out: \(status)")
            let connections = try await stack.fake.get("/connections")["connections"]?.arrayValue ?? []
            #expect(connections.count >= 2, "a new connection before the old one closed: \(connections)")
        }
    }

    /// slack-api.md §9: a token Slack refuses stops the plugin, never a retry loop. Revoked
    /// while a run streams: the answer Slack refuses is not dropped; it stays with pi-relayd for
    /// the token that replaces it, and the plugin ends as not configured, naming the variable.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aTokenRevokedWhileRunningKeepsTheAnswerAndStopsThePlugin() async throws {
        try await SlackStack.with { stack in
            let daemon = try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            try await stack.say("!scenario slow 40 250")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 2 ")
            _ = try await stack.fake.post("/revoke")
            try await daemon.expectTokenRefused("slack", saying: "token_revoked", naming: "SLACK_BOT_TOKEN") { stack.home.pluginLog("slack") }
        }
    }

    /// A bot token Slack refuses: the plugin stops as not configured, says which variable to
    /// fix, is not restarted in a loop, and the token is in no output.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aRevokedTokenLeavesThePluginNotConfigured() async throws {
        try await SlackStack.with { stack in
            let daemon = try await stack.start(botToken: "xoxb-9999-REVOKEDslackSecretQ9x8c7v6", connected: false)
            let info = try await daemon.waitForPlugin("slack", "not configured", timeout: .seconds(60)) { $0.state == "not-configured" }
            #expect(info.reason.contains("SLACK_BOT_TOKEN") && info.restarts == 0, "\(info)")
            #expect(!info.reason.contains("REVOKED") && !stack.home.pluginLog("slack").contains("REVOKED"), "\(info)")
        }
    }
}

extension StackSlackTests {
    /// `pi-relayd pair slack`: the code typed as `/pi pair CODE` by a user on no allowlist pairs
    /// them once the terminal confirms; they can then use the bot.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aSlackUserPairsWithPiPair() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let mallory = SlackStack.mallory
            let terminal = try PairingTerminal(stack.home, messenger: "slack", answer: "y\n", json: false)
            let line = try await waitFor("the code", timeout: .seconds(60)) {
                terminal.process.stdout.split(separator: "\n").first { $0.contains("/pi pair ") }
            }
            let code = try #require(line.components(separatedBy: "/pi pair ").last?.split(separator: " ").first.map(String.init))
            try await stack.command("pair \(code)", from: mallory)
            try await stack.waitForBotMessage(in: SlackStack.dm(mallory), containing: "Paired")
            let done = try await terminal.finish()
            #expect(done.status == 0 && done.stdout.contains("can now use slack"), "\(done)")
            try await stack.command("new \(stack.workspace) slpair", from: mallory)
            try await stack.waitForBotMessage(in: SlackStack.dm(mallory), containing: "Started slpair")
            try await stack.say("hello from slack pairing", from: mallory)
            _ = try await waitFor("pi received the paired user's prompt", timeout: .seconds(60)) {
                stack.piPrompts(containing: "hello from slack pairing").first
            }
        }
    }
}

extension StackSlackTests {
    /// A mention in a channel comes as two events with two event ids (app_mention and
    /// message), and Slack delivers an event again when an ack is lost: pi gets the prompt once.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aMentionAndARetriedEventAreActedOnOnce() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let channel = "C0TEAM02"
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: SlackStack.dm(SlackStack.alice), containing: "Started sl")
            try await stack.command("use sl", in: channel)
            try await stack.waitForEphemeral(to: SlackStack.alice.id, containing: "Watching sl")
            let sent = try await stack.say("<@\(SlackStack.bot)> once only", in: channel)
            let ids = sent["event_ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(ids.count == 2, "a mention is two events: \(sent)")
            do { try await stack.waitForBotMessage(in: channel, containing: "Echo: once only") } catch {
                throw StackFailure("\(error)\n\(stack.home.pluginLog("slack").suffix(3000))\n\(stack.home.read("logs/pi-relayd.log").suffix(3000))")
            }
            for id in ids { try await stack.fake.post("/redeliver", ["event_id": .string(id)]) }
            try await waitUntil("the retries were acknowledged", timeout: .seconds(30)) {
                let envelopes = (try? await stack.envelopes()) ?? []
                return envelopes.filter { ($0["retry_attempt"]?.intValue ?? 0) >= 1 && $0["acked_at"] != .null }.count >= 2
            }
            try await Task.sleep(for: .seconds(2))
            #expect(stack.piPrompts(containing: "once only").count == 1, "acted on once")
            let status = try await stack.json("plugin", "call", "slack", "status")
            #expect(status["duplicates"]?.intValue ?? 0 >= 3, "the second event and both retries were skipped: \(status)")
        }
    }
}

extension StackSlackTests {
    /// A question with more than five options comes as a static select; the option picked is
    /// the answer.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func manyOptionsAreAStaticSelect() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            try await stack.say("!scenario ui ask-select 60000 8")
            let asked = try #require(try await stack.waitForBotMessage(in: dm, containing: "Pick a colour").first)
            let elements = asked["blocks"]?.arrayValue?.flatMap { $0["elements"]?.arrayValue ?? [] } ?? []
            #expect(elements.first?["type"] == "static_select" && elements.first?["options"]?.arrayValue?.count == 8, "\(asked)")
            try await stack.click(option: "7. colour 7", on: asked)
            try await stack.waitForBotMessage(in: dm, containing: "select answer: \"colour 7\"")
        }
    }

    /// Socket Mode switched off in the app's settings (`disconnect` with `link_disabled`): the
    /// plugin stops as not configured and says where to turn it on.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func socketModeSwitchedOffLeavesThePluginNotConfigured() async throws {
        try await SlackStack.with { stack in
            let daemon = try await stack.start()
            try await stack.fake.post("/disconnect", ["reason": "link_disabled", "close_after": 5])
            let info = try await daemon.waitForPlugin("slack", "not configured", timeout: .seconds(60)) { $0.state == "not-configured" }
            #expect(info.reason.contains("Socket Mode") && info.restarts == 0, "\(info)")
        }
    }

    /// An answered question's closing is a chat.update, on a budget every live view in the
    /// workspace shares (Tier 3, slack-api.md §8). While chat.update is held off by a 429, the
    /// answer still reaches pi and the run's next question is posted at once; the first one's
    /// message says who answered when the budget allows.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQuestionsClosingHoldsUpNeitherTheAnswerNorTheNextQuestion() async throws {
        try await SlackStack.with { stack in
            try await stack.start()
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) sl")
            try await stack.waitForBotMessage(in: dm, containing: "Started sl")
            try await stack.say("!scenario ui confirm-twice")
            let first = try #require(try await stack.waitForBotMessage(in: dm, containing: "*First step?*").first)
            try await stack.fake.post("/rate_limit", ["method": "chat.update", "retry_after": 8, "count": 3])
            let clicked = ContinuousClock.now
            try await stack.click("Yes", on: first)
            try await stack.waitForBotMessage(in: dm, containing: "*Second step?*", timeout: 30)
            let waited = ContinuousClock.now - clicked
            #expect(waited < .seconds(5), "the second question waited \(waited), as if behind the first one's closing")
            try await waitUntil("the first question closed", timeout: .seconds(60)) {
                let shown = try await stack.botMessages(dm).first { $0["ts"] == first["ts"] }
                return shown?["text"]?.stringValue?.contains("<@\(SlackStack.alice.id)>") == true
                    && shown?["blocks"]?.arrayValue?.contains { $0["type"] == "actions" } != true
            }
            let second = try #require(try await stack.waitForBotMessage(in: dm, containing: "*Second step?*").first)
            try await stack.click("No", on: second)
            try await stack.waitForBotMessage(in: dm, containing: "confirm-twice answers:", timeout: 60)
        }
    }
}
