import Foundation
import PiRelaySDK
import Testing

/// Issue 6 point 11, the chat commands, each as a Discord user gives it (slash command or button)
/// through the real daemon and plugins to the fake pi, checked on both ends: what Discord shows
/// and what pi was sent.
@Suite struct StackCommandTests {
    /// /sessions lists every session with a button each and Disconnect; a session's button binds
    /// the DM to it (its prompts go there), Disconnect unbinds it (prompts go nowhere).
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func sessionsButtonsBindTheDMAndDisconnectUnbindsIt() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.newSession("api")
            let web = try await stack.newSession("web")

            let list = try await stack.command("sessions")
            #expect(list.ephemeral, "\(list)")
            #expect(list.text.contains("🔵 1. **api**") && list.text.contains("🟢 2. **web**"), "\(list)")
            #expect(list.labels.contains("🔵 1. api") && list.labels.contains("🟢 2. web") && list.labels.contains("Disconnect"), "\(list)")
            let message = try #require(list.messageID)
            let useWeb = try #require(list.button("🟢 2. web"), "\(list)")
            #expect(useWeb == "use:\(web)")

            let used = try await stack.reply(to: try await stack.click(useWeb, on: message))
            #expect(used.text.contains("Watching web"), "\(used)")
            try await stack.dm("hello web")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: hello web")
            #expect(try await stack.json("last", "web")["text"] == "Echo: hello web")
            let again = try await stack.command("sessions")
            #expect(
                again.text.split(separator: "\n").contains { $0.hasPrefix("🟢 2. **web**") && $0.hasSuffix("active here") },
                "the list marks the watched session: \(again)")

            let disconnected = try await stack.reply(to: try await stack.click("disconnect", on: message))
            #expect(disconnected.text.contains("Disconnected"), "\(disconnected)")
            let before = try await stack.fake.cursor
            try await stack.dm("anyone there?")
            try await stack.waitForBotMessage(in: dm, containing: "No session here yet", since: before)
            try await Task.sleep(for: .seconds(1))
            #expect(stack.piPrompts(containing: "anyone there").isEmpty, "an unbound DM prompts nobody")
        }
    }

    /// /new in a guild channel starts the session, opens a public thread for it and binds the
    /// thread: the thread's messages (no mention needed) are its prompts, its answers go there.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func newInAGuildChannelOpensAThreadBoundToTheSession() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let project = stack.workspace + "/proj"
            try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
            let started = try await stack.command("new", ["cwd": .string(project), "name": "proj"], in: StackHome.general)
            #expect(started.text.contains("Started proj"), "\(started)")
            let bound = try #require(
                try await stack.fake.wait("for=message&author=bot&contains=\(StackHome.escaped("This thread talks to proj"))")?[0])
            let thread = try #require(bound["channel_id"]?.stringValue)
            #expect(thread != StackHome.general)
            let channels = try await stack.fake.get("/channels")["channels"]?.arrayValue ?? []
            let info = try #require(channels.first { $0["id"]?.stringValue == thread }, "\(channels)")
            #expect(info["parent_id"]?.stringValue == StackHome.general, "\(info)")
            #expect(info["type"] == 11, "a public thread: \(info)")
            let session = try #require(try await stack.session(named: "proj"))
            #expect(session["cwd"]?.stringValue == project, "\(session)")

            try await stack.say("work in the thread", in: thread, mention: false)
            try await stack.waitForBotMessage(in: thread, containing: "Echo: work in the thread")
            #expect(try await stack.json("last", "proj")["text"] == "Echo: work in the thread")
            #expect(
                try await stack.botMessages(StackHome.general).allSatisfy { $0["content"]?.stringValue?.contains("Echo:") != true },
                "the answer went to the thread, not the channel")
        }
    }

    /// /status, /model (switch and show) and /compact on the DM's session, each reaching pi as
    /// the matching RPC command.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func statusModelAndCompact() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "st"])
            let id = try #require(try await stack.session(named: "st")?["id"]?.stringValue)

            let status = try await stack.command("status")
            #expect(status.ephemeral, "\(status)")
            for line in ["**st** (\(id))", "cwd: `\(stack.workspace)`", "state: idle", "model:"] {
                #expect(status.text.contains(line), "/status shows \(line): \(status)")
            }

            let switched = try await stack.command("model", ["model": "anthropic/claude-haiku-4-5"])
            #expect(switched.text.contains("st now uses anthropic/claude-haiku-4-5"), "\(switched)")
            let setModel = try #require(stack.piInput("set_model").last)
            #expect(setModel["provider"] == "anthropic" && setModel["modelId"] == "claude-haiku-4-5", "\(setModel)")
            #expect(try await stack.command("model").text.contains("st uses anthropic/claude-haiku-4-5"))
            #expect(try await stack.command("status").text.contains("model: anthropic/claude-haiku-4-5"))

            try await stack.dm("something to compact")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: something to compact")
            try await stack.waitForState("st", "idle")
            let compacted = try await stack.command("compact")
            #expect(compacted.text.contains("Compacted st"), "\(compacted)")
            #expect(stack.piInput("compact").count == 1)
        }
    }

    /// /stop during a `!scenario slow` run: pi gets `abort`, the run ends early and its final
    /// says it was aborted.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func stopAbortsASlowRun() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "slow"])
            try await stack.dm("!scenario slow 400 50")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 5 ")
            let stopped = try await stack.command("stop")
            #expect(stopped.text.contains("Stopped slow"), "\(stopped)")
            #expect(stack.piInput("abort").count == 1)
            try await stack.waitForState("slow", "idle")
            let final = try await stack.waitForBotMessage(in: dm, containing: "⏹ Aborted")
            #expect(final.count == 1)
            #expect(final.first?["content"]?.stringValue?.hasSuffix("\n⏹ Aborted") == true, "said once, at the end: \(final)")
            let answer = try await stack.botMessages(dm).compactMap { $0["content"]?.stringValue }.joined(separator: "\n")
            #expect(answer.contains("chunk 5 ") && !answer.contains("chunk 400"), "the run ended early: \(answer.suffix(300))")
        }
    }

    /// /steer and /followup while a slow run streams: pi gets `steer` and `follow_up` with the
    /// texts, and the run's answer shows both were handled (the fake pi echoes each).
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func steerAndFollowUpDuringARun() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "run"])
            // 12 s: both commands land inside the run on a loaded machine.
            try await stack.dm("!scenario slow 80 150")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 3 ")
            let steered = try await stack.command("steer", ["text": "look at the tests first"])
            #expect(steered.text.contains("Steering run"), "\(steered)")
            let queued = try await stack.command("followup", ["text": "then run the linter"])
            #expect(queued.text.contains("Queued for run"), "\(queued)")
            // pi-rpc spec §5: as prompts with pi's own queueing, which a busy pi queues the same.
            let behaviours = stack.piInput("prompt").filter { $0["message"] != "!scenario slow 80 150" }.map {
                "\($0["streamingBehavior"]?.stringValue ?? "-") \($0["message"]?.stringValue ?? "")"
            }
            #expect(behaviours == ["steer look at the tests first", "followUp then run the linter"], "\(behaviours)")

            try await stack.waitForBotMessage(in: dm, containing: "Echo: then run the linter", timeout: 90)
            try await stack.waitForState("run", "idle")
            let shown = try await stack.botMessages(dm).compactMap { $0["content"]?.stringValue }
            #expect(shown.filter { $0.contains("Echo: look at the tests first") }.count == 1, "\(shown)")
            #expect(shown.filter { $0.contains("Echo: then run the linter") }.count == 1, "\(shown)")
            #expect(!shown.contains { $0.contains("▶ USER") }, "steers and follow-ups from this DM are not echoed into it")
        }
    }

    /// /to prompts another session without switching the DM; /end ends the DM's session and
    /// leaves the DM unbound.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func toPromptsAnotherSessionAndEndEndsThisOne() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.newSession("other")
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "main"])

            let sent = try await stack.command("to", ["session": "other", "text": "ping other"])
            #expect(sent.text.contains("Sent to other"), "\(sent)")
            try await waitUntil("other answered") { try await stack.json("last", "other")["text"] == "Echo: ping other" }
            try await stack.dm("still main")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: still main")
            #expect(try await stack.json("last", "main")["text"] == "Echo: still main")
            #expect(
                try await stack.botMessages(dm).allSatisfy { $0["content"]?.stringValue?.contains("Echo: ping other") != true },
                "the other session's answer goes to its own chats, not this DM")

            let ended = try await stack.command("end")
            #expect(ended.text.contains("Ended main"), "\(ended)")
            #expect(try await stack.session(named: "main") == nil)
            #expect(try await stack.session(named: "other") != nil)
            let before = try await stack.fake.cursor
            try await stack.dm("after the end")
            try await stack.waitForBotMessage(in: dm, containing: "No session here yet", since: before)
            #expect(stack.piPrompts(containing: "after the end").isEmpty)
        }
    }

    /// In a DM the commands also work as plain text (`/status`, `/stop`, neither sent to pi),
    /// and a message written while the agent is busy is queued for pi as a follow-up and answered
    /// after the run.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func plainTextCommandsAndFollowUpsWhileBusy() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "txt"])
            try await stack.dm("!scenario slow 60 50")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 3 ")
            try await stack.dm("and after that, this")
            let queued = try await stack.waitForPiPrompt(containing: "and after that, this")
            #expect(queued["type"] == "follow_up" || queued["streamingBehavior"] == "followUp", "\(queued)")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: and after that, this", timeout: 90)
            try await stack.waitForState("txt", "idle")

            var before = try await stack.fake.cursor
            try await stack.dm("/status")
            try await stack.waitForBotMessage(in: dm, containing: "**txt**", since: before)
            before = try await stack.fake.cursor
            try await stack.dm("!scenario slow 400 50")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 5 ", since: before)
            try await stack.dm("/stop")
            try await stack.waitForBotMessage(in: dm, containing: "Stopped txt", since: before)
            try await stack.waitForBotMessage(in: dm, containing: "⏹ Aborted", since: before)
            #expect(stack.piInput("abort").count == 1)
            #expect(stack.piPrompts(containing: "/status").isEmpty && stack.piPrompts(containing: "/stop").isEmpty)
        }
    }

    /// The bot's presence names the session a user watches and its model ("Watching
    /// shown (…)"): set by /new, changed by /model, cleared by /disconnect.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func presenceShowsTheWatchedSessionAndItsModel() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "shown"])
            try await Self.waitForPresence(stack) { $0?.hasPrefix("shown (") == true }
            _ = try await stack.command("model", ["model": "anthropic/claude-haiku-4-5"])
            try await Self.waitForPresence(stack) { $0 == "shown (anthropic/claude-haiku-4-5)" }
            try await stack.dm("/disconnect")
            try await stack.waitForBotMessage(in: dm, containing: "Disconnected")
            try await Self.waitForPresence(stack) { $0 == nil }
        }
    }

    /// /sessions colours each session's button: the watched one green, idle ones blue, busy ones
    /// grey and marked ⏳; Disconnect is red.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func sessionsColoursWatchedIdleAndBusy() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "mine"])
            _ = try await stack.newSession("resting")
            _ = try await stack.newSession("working")
            _ = try await stack.json("send", "working", "!scenario slow 400 50")
            try await stack.waitForState("working", "busy")

            let list = try await stack.command("sessions")
            let buttons = Dictionary(
                uniqueKeysWithValues: list.components.flatMap { $0["components"]?.arrayValue ?? [] }
                    .compactMap { b in b["label"]?.stringValue.map { ($0, b["style"]?.intValue ?? 0) } })
            #expect(buttons == ["🔵 1. mine": 3, "🟢 2. resting": 1, "⏳ 🟠 3. working": 2, "Disconnect": 4], "\(buttons)")
            let lines = list.text.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("🔵 1. **mine**") && $0.hasSuffix("active here") }, "\(list)")
            #expect(lines.contains { $0.hasPrefix("🟠 3. **working**") && $0.contains(" · busy · ") }, "\(list)")
            _ = try await stack.json("abort", "working")
        }
    }

    /// Work that takes longer than Discord's 3 seconds (a compaction of 5 s) is deferred at once
    /// and its answer edited in afterwards; the fake enforces the deadline, so a late answer
    /// would fail the run.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func slowCommandsAreDeferredThenAnswered() async throws {
        try await StackHome.with { stack in
            try await stack.start(environment: ["FAKE_PI_COMPACT_MS": "5000"])
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "big"])
            try await stack.dm("fill the context a little")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: fill the context")
            try await stack.waitForState("big", "idle")
            let id = try await stack.slash("compact")
            let compacted = try await stack.reply(to: id, timeout: 90)
            #expect(compacted.ack == 5, "deferred: \(compacted)")
            #expect(compacted.text.contains("Compacted big"), "\(compacted)")
            let view = try await stack.fake.interaction(id)
            #expect((view["ack_latency_s"]?.doubleValue ?? 99) < 3, "acknowledged within 3 s: \(view["ack_latency_s"] ?? nil)")
        }
    }

    /// Waits until the bot's latest presence matches: the name of its one Watching activity, or
    /// nil for none.
    static func waitForPresence(_ stack: StackHome, _ matches: (String?) -> Bool) async throws {
        var seen: JSONValue?
        do {
            try await waitUntil("the bot's presence changes", timeout: .seconds(30)) {
                guard let last = try await stack.fake.get("/presences")["presences"]?.arrayValue?.last else { return false }
                seen = last
                let activities = last["activities"]?.arrayValue ?? []
                if activities.isEmpty { return matches(nil) }
                return activities.count == 1 && activities[0]["type"] == 3 && matches(activities[0]["name"]?.stringValue)
            }
        } catch {
            throw StackFailure("the presence did not change as expected; the latest: \(seen.map { $0.serialized() } ?? "none")")
        }
    }
}
