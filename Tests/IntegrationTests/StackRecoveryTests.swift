import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 6 point 11, crashes and restarts: the discord plugin killed mid-stream loses and
/// duplicates nothing (what Discord sent meanwhile comes back in the gateway's RESUME replay),
/// and a restarted daemon keeps every chat's binding.
@Suite struct StackRecoveryTests {
    /// `kill -9` of the discord plugin while an answer streams into the DM, and a DM written
    /// while it is down: the restarted plugin resumes the gateway session, gets the missed
    /// message from the replay (pi is prompted with it once), keeps editing the run's messages,
    /// and every chunk of the answer and the second answer show exactly once.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func pluginKilledMidStreamLosesAndDuplicatesNothing() async throws {
        try await StackHome.with { stack in
            // A restart 3 s after the crash leaves time to write to the bot while it is down.
            var config = StackConfig()
            config.plugins.immediateRestarts = 0
            config.plugins.initialBackoffMs = 3000
            config.plugins.jitter = 0
            let daemon = try await stack.start(config)
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "k"])
            try await stack.dm("!scenario slow 100 60")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 10 ")

            let pid = try await stack.discordPid(daemon)
            let since = try await stack.fake.cursor
            #expect(kill(pid, SIGKILL) == 0)
            guard try await stack.fake.wait("for=disconnected", timeout: 30) != nil else {
                throw StackFailure("the fake Discord still sees the killed plugin connected")
            }
            try await daemon.waitForPlugin("discord", "is down") { $0.state != "running" }
            try await stack.dm("written while the plugin was down")
            guard try await stack.fake.wait("for=resumed&since=\(since)", timeout: 60) != nil else {
                throw StackFailure("the restarted plugin did not resume its gateway session:\n\(stack.home.pluginLog("discord").suffix(3000))")
            }

            try await stack.waitForBotMessage(in: dm, containing: "Echo: written while the plugin was down", timeout: 90)
            try await stack.waitForBotMessage(in: dm, containing: "chunk 100 ", timeout: 90)
            try await stack.waitForState("k", "idle")
            // Whatever is still in flight settles before counting.
            try await Task.sleep(for: .seconds(2))
            let contents = try await stack.botMessages(dm).compactMap { $0["content"]?.stringValue }
            let all = contents.joined(separator: "\n")
            for n in 1...100 {
                let count = all.components(separatedBy: "chunk \(n) ").count - 1
                #expect(count == 1, "chunk \(n) shows \(count) times")
            }
            #expect(all.components(separatedBy: "Echo: written while the plugin was down").count - 1 == 1, "\(contents)")
            #expect(Set(contents).count == contents.count, "a message was posted twice: \(contents)")
            #expect(stack.piPrompts(containing: "written while the plugin was down").count == 1)
            #expect(stack.piPrompts(containing: "!scenario slow").count == 1)
            let info = try #require(try await daemon.plugins()["discord"])
            #expect(info.restarts == 1 && info.outbox == 0, "\(info)")
        }
    }

    /// `kill -9` of the daemon while an answer streams into the DM: the run can never finish (its
    /// pi goes too), so the restarted daemon says in the DM that it was cut off, once; the
    /// session then answers again as before.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func daemonKilledMidRunTellsTheChatTheAnswerWasCutOff() async throws {
        try await StackHome.with { stack in
            let doomed = try await stack.start(doomed: true)
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "cut"])
            try await stack.dm("!scenario slow 300 60")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 5 ")
            doomed.signal(SIGKILL)
            #expect(await doomed.waitForExit() == .signaled(SIGKILL))

            try await stack.start(freshCommands: false)
            try await stack.waitForBotMessage(in: dm, containing: "the answer in progress was cut off", timeout: 90)
            try await stack.dm("are you back?")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: are you back?")
            let shown = try await stack.botMessages(dm).compactMap { $0["content"]?.stringValue }
            #expect(shown.filter { $0.contains("was cut off") }.count == 1, "\(shown)")
            #expect(!shown.contains { $0.contains("chunk 300 ") }, "the cut run did not go on")
            #expect(stack.piPrompts(containing: "!scenario slow").count == 1, "the cut prompt is not sent again")
        }
    }

    /// The same for a chat on `/progress quiet`, which sees no live view, only finals: it hears
    /// the cut-off too, as it would have heard the answer, rather than waiting for good.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQuietChatIsToldTooThatTheAnswerWasCutOff() async throws {
        try await StackHome.with { stack in
            let doomed = try await stack.start(doomed: true)
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "cut"])
            try await stack.dm("/progress quiet")
            try await stack.waitForBotMessage(in: dm, containing: "Progress here is now quiet")
            try await stack.dm("!scenario slow 300 60")
            try await waitUntil("the run is saved as under way", timeout: .seconds(60)) {
                stack.home.read("state/sessions.json").contains("activeRun")
            }
            doomed.signal(SIGKILL)
            #expect(await doomed.waitForExit() == .signaled(SIGKILL))

            try await stack.start(freshCommands: false)
            try await stack.waitForBotMessage(in: dm, containing: "the answer in progress was cut off", timeout: 90)
        }
    }

    /// `kill -9` of the daemon while a question waits for its answer: the dialog dies with its
    /// pi, so the restarted daemon closes the question in the DM as an expired one is closed:
    /// its message says it expired because pi-relayd was restarted and loses its buttons (it
    /// kept them, and a click only heard "already answered or expired"); a click from a client
    /// still showing them is told privately that it is closed, pi hears no answer, and the
    /// session answers again.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQuestionOpenWhenTheDaemonIsKilledIsClosedAfterTheRestart() async throws {
        try await StackHome.with { stack in
            let doomed = try await stack.start(doomed: true)
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "asked"])
            try await stack.dm("!scenario ui confirm 120000")
            let question = try await stack.waitForCard(in: dm, containing: "Apply the migration?")
            let message = try #require(question["id"]?.stringValue)
            let yes = try #require(StackHome.button("Yes", in: question))
            doomed.signal(SIGKILL)
            #expect(await doomed.waitForExit() == .signaled(SIGKILL))

            try await stack.start(freshCommands: false)
            try await stack.waitForBotMessage(in: dm, containing: "expired: pi-relayd was restarted", timeout: 90)
            let closed = try await stack.fake.message(message)
            let text = closed["content"]?.stringValue ?? ""
            #expect(text.contains("Apply the migration?") && text.contains("expired: pi-relayd was restarted"), "\(closed)")
            #expect(closed["components"]?.arrayValue?.isEmpty == true, "no buttons left: \(closed)")

            let late = try await stack.reply(to: try await stack.click(yes, on: message, stale: true))
            #expect(late.ephemeral && late.text.contains("no longer open"), "\(late)")
            #expect(stack.piInput("extension_ui_response").isEmpty, "the dead dialog got no answer")
            try await stack.dm("are you back?")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: are you back?")
            let shown = try await stack.botMessages(dm).compactMap { $0["content"]?.stringValue }
            #expect(
                shown.filter { $0.contains("pi-relayd was restarted and the agent") }.count == 1,
                "closed once, in its own message: \(shown)")
            #expect(shown.filter { $0.contains("Apply the migration?") }.count == 1, "\(shown)")
        }
    }

    /// Stop and start the daemon: the DM still watches its session and the thread /new opened is
    /// still bound to its own; each one's messages keep reaching the right session and its
    /// answers the right place, new messages beside the old answers (a restarted daemon once
    /// numbered its runs from 1 again, and the plugin turned the old answers into the new ones).
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func daemonRestartKeepsTheDMSessionAndThreadBindings() async throws {
        try await StackHome.with { stack in
            let first = try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "mine"])
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "threaded"], in: StackHome.general)
            let bound = try #require(
                try await stack.fake.wait("for=message&author=bot&contains=\(StackHome.escaped("This thread talks to threaded"))")?[0])
            let thread = try #require(bound["channel_id"]?.stringValue)
            try await stack.dm("before the restart")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: before the restart")
            try await stack.waitForState("mine", "idle")
            let ids = Dictionary(
                uniqueKeysWithValues: try await stack.sessions().compactMap { s -> (String, String)? in
                    guard let name = s["name"]?.stringValue, let id = s["id"]?.stringValue else { return nil }
                    return (name, id)
                })

            let (exit, forced) = await first.terminate()
            #expect(exit == .exited(0) && !forced)
            try await stack.start(freshCommands: false)
            let after = Dictionary(
                uniqueKeysWithValues: try await stack.sessions().compactMap { s -> (String, String)? in
                    guard let name = s["name"]?.stringValue, let id = s["id"]?.stringValue else { return nil }
                    return (name, id)
                })
            #expect(after == ids, "the same sessions with the same ids")

            let status = try await stack.command("status")
            #expect(status.text.contains("**mine**"), "the DM still watches mine: \(status)")
            try await stack.dm("after the restart")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: after the restart")
            #expect(try await stack.json("last", "mine")["text"] == "Echo: after the restart")
            try await stack.say("thread after the restart", in: thread, mention: false)
            try await stack.waitForBotMessage(in: thread, containing: "Echo: thread after the restart")
            #expect(try await stack.json("last", "threaded")["text"] == "Echo: thread after the restart")
            #expect(stack.piPrompts(containing: "after the restart").count == 2)
            let shown = try await stack.botMessages(dm).compactMap { $0["content"]?.stringValue }
            for answer in ["Echo: before the restart", "Echo: after the restart"] {
                #expect(shown.filter { $0.contains(answer) }.count == 1, "\(answer) shows once: \(shown)")
            }
        }
    }

    /// `kill -9` of the discord plugin while a question waits for its answer: the restarted
    /// plugin still knows the question, so a click on the message posted before the crash
    /// answers it, pi gets that answer once, the message is edited to say who answered, and the
    /// question is not posted again.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aPendingQuestionSurvivesAPluginRestart() async throws {
        try await StackHome.with { stack in
            let daemon = try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "q"])
            try await stack.dm("!scenario ui confirm 120000")
            let question = try await stack.waitForCard(in: dm, containing: "Apply the migration?")
            let message = try #require(question["id"]?.stringValue)
            let yes = try #require(StackHome.button("Yes", in: question))

            let pid = try await stack.discordPid(daemon)
            let since = try await stack.fake.cursor
            #expect(kill(pid, SIGKILL) == 0)
            try await stack.waitForGateway(since: since)
            _ = try await daemon.waitForPlugin("discord", "is back", timeout: .seconds(60)) { $0.state == "running" && $0.restarts == 1 }

            _ = try await stack.reply(to: try await stack.click(yes, on: message))
            try await stack.waitForBotMessage(in: dm, containing: "confirm answer: true")
            let closed = try await stack.fake.message(message)
            #expect(closed["content"]?.stringValue?.contains("alice (discord) answered: yes") == true, "\(closed)")
            #expect(closed["components"]?.arrayValue?.isEmpty == true, "no buttons left: \(closed)")
            let responses = stack.piInput("extension_ui_response")
            #expect(responses.count == 1 && responses.first?["confirmed"] == true, "\(responses)")
            let asked = try await stack.botMessages(dm).filter { $0["content"]?.stringValue?.contains("❓ **Apply the migration?**") == true }
            #expect(asked.count == 1, "the question was posted once: \(asked.map { $0["content"] ?? nil })")
        }
    }

    /// A question card whose record the disk refused (`questions.json`) is not posted: after a
    /// restart its buttons would answer "no longer open" while the agent waits. The delivery
    /// stays unacknowledged and is tried again; once the disk has room the card comes, and it
    /// still answers after a kill -9.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQuestionWhoseRecordCouldNotBeSavedWaitsForTheDisk() async throws {
        try await StackHome.with { stack in
            let daemon = try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "q"])
            let pid = try await stack.discordPid(daemon)
            try BoundFileSizeLimit.set(pid, bytes: 1)
            try await stack.dm("!scenario ui confirm 120000")
            try await waitUntil("the question is open") { !((try await stack.json("questions", "q").arrayValue ?? []).isEmpty) }
            try await Task.sleep(for: .seconds(3))
            let early = try await stack.botMessages(dm).filter { $0["content"]?.stringValue?.contains("❓ **Apply the migration?**") == true }
            #expect(early.isEmpty, "a card posted while its record could not be saved: \(early)")
            try BoundFileSizeLimit.set(pid, bytes: nil)
            let question = try await stack.waitForCard(in: dm, containing: "Apply the migration?")
            let message = try #require(question["id"]?.stringValue)
            let yes = try #require(StackHome.button("Yes", in: question))

            let since = try await stack.fake.cursor
            #expect(kill(pid, SIGKILL) == 0)
            try await stack.waitForGateway(since: since)
            _ = try await daemon.waitForPlugin("discord", "is back", timeout: .seconds(60)) { $0.state == "running" && $0.restarts == 1 }
            _ = try await stack.reply(to: try await stack.click(yes, on: message))
            try await stack.waitForBotMessage(in: dm, containing: "confirm answer: true")
        }
    }
}
