import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 14's approval gates through everything real: the daemon and its plugins against the
/// fake Discord, and a terminal pi (the fake pi extension host running the real extension) whose
/// gated bash calls wait for a button. Named Stack… so a whole sanitizer run leaves it out.
@Suite(.serialized) struct StackApprovalTests {
    static let rules = rules(timeoutSeconds: 3)

    /// The gates. A test that lets a gate time out keeps it short; one that answers every gate
    /// gives it long enough for its question to wait out the DM's post budget (five posts in
    /// five seconds, discord-api.md §6) on a loaded machine.
    static func rules(timeoutSeconds: Int) -> String {
        """
        approvals:
          timeoutSeconds: \(timeoutSeconds)
          rules:
            - name: rm-rf
              tools: bash
              command: 'rm\\s+-rf'
            - name: git-push
              tools: [bash]
              command: 'git\\s+push'

        """
    }

    /// The gate's question in the DM, with its buttons, once it shows `text`.
    static func gate(_ stack: StackHome, _ dm: String, containing text: String) async throws -> JSONValue {
        try await waitFor("an approval question about \(text)") {
            try await stack.botMessages(dm).last {
                $0["content"]?.stringValue?.contains(text) == true && !($0["components"]?.arrayValue?.isEmpty ?? true)
            }
        }
    }

    static func press(_ stack: StackHome, _ label: String, on question: JSONValue, from user: StackUser = .alice) async throws -> StackReply {
        // Discord numbers a select's options: "1. Approve once".
        let labels = (question["components"]?.arrayValue ?? []).flatMap { $0["components"]?.arrayValue ?? [] }.compactMap { $0["label"]?.stringValue }
        let shown = try #require(labels.first { $0 == label || $0.hasSuffix(". " + label) }, "\(labels)")
        let button = try #require(StackHome.button(shown, in: question), "\(question)")
        return try await stack.reply(to: try await stack.click(button, on: try #require(question["id"]?.stringValue), from: user))
    }

    static func runEnd(_ pi: HostedPi, after count: Int) async throws -> String {
        let ended = try await waitFor("run \(count + 1) to end at the terminal") { () -> [JSONValue]? in
            let ends = pi.seen.filter { $0["saw"] == "run_end" }
            return ends.count > count ? ends : nil
        }
        return ended[count]["text"]?.stringValue ?? ""
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func approveOnceForTheSessionDenyAndOnlyTheAllowlistMayPress() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules(timeoutSeconds: 60)))
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])

            // Approve once: the terminal's copy of the question closes, the call runs.
            try await stack.dm("run: rm -rf build --token=ghp_abcdefghijklmnopqrstuvwxyz0123456789")
            let first = try await Self.gate(stack, dm, containing: "rm -rf build")
            let shown = first["content"]?.stringValue ?? ""
            #expect(shown.contains("rule: rm-rf") && shown.contains("🔒 Approve bash?"), "\(shown)")
            #expect(!shown.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), "the token is redacted in the chat: \(shown)")
            try await pi.waitToSee("the terminal's copy") { $0["saw"] == "dialog" && $0["title"]?.stringValue?.contains("rm-rf") == true }
            // The session lists the gate apart from its questions (`sessions`, the dashboard's list).
            let row = try await stack.json("sessions").arrayValue?.first { $0["id"]?.stringValue == StackTerminalTests.sessionID }
            #expect(row?["approvals"] == 1 && row?["questions"] == 1, "\(String(describing: row))")
            let line = try await stack.cli(["sessions"])
            #expect(line.stdout.contains("1 approval(s) waiting") && !line.stdout.contains("question(s) waiting"), "\(line.stdout)")
            // mallory is not on the allowlist: refused, and the call still waits.
            let refused = try await Self.press(stack, "Approve once", on: first, from: .mallory)
            #expect(refused.text == "Not authorized." && refused.ephemeral, "\(refused)")
            #expect(pi.seen.filter { $0["saw"] == "run_end" }.isEmpty, "the call still waits")
            _ = try await Self.press(stack, "Approve once", on: first)
            try await pi.waitToSee("the terminal dialog dismissed") { $0["saw"] == "dialog_closed" && $0["by"] == "abort" }
            #expect(try await Self.runEnd(pi, after: 0).hasPrefix("Done: ran rm -rf build"))

            // Approve for the session: the next call of the same rule passes without a question.
            try await stack.dm("run: git push origin main")
            _ = try await Self.press(stack, "Approve for session", on: try await Self.gate(stack, dm, containing: "git push origin main"))
            #expect(try await Self.runEnd(pi, after: 1) == "Done: ran git push origin main")
            try await stack.dm("run: git push --tags")
            #expect(try await Self.runEnd(pi, after: 2) == "Done: ran git push --tags")
            #expect(
                try await stack.botMessages(dm).contains {
                    $0["content"]?.stringValue?.contains("git push --tags") == true && $0["components"] != nil
                        && !($0["components"]?.arrayValue?.isEmpty ?? true)
                } == false)

            // Deny: the agent hears why and carries on.
            try await stack.dm("run: rm -rf /")
            _ = try await Self.press(stack, "Deny", on: try await Self.gate(stack, dm, containing: "rm -rf /"))
            let denied = try await Self.runEnd(pi, after: 3)
            #expect(denied.contains("approval gate \"rm-rf\" denied bash") && denied.contains("alice"), "\(denied)")

            // The audit trail: who, where, what, each decision; the token never written.
            let log = stack.home.read("state/approvals.jsonl")
            #expect(!log.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), "no secret in the audit log")
            let entries = log.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
            #expect(
                entries.map { $0["decision"]?.stringValue ?? "" } == ["approved_once", "approved_for_session", "approved_earlier", "denied"],
                "\(entries)")
            #expect(entries[0]["by"]?.stringValue?.contains("alice") == true && entries[0]["where"]?.arrayValue?.isEmpty == false, "\(entries[0])")
            let mode = try FileManager.default.attributesOfItem(atPath: stack.home.path + "/state/approvals.jsonl")[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let listed = try await stack.json("approvals")
            #expect(listed.arrayValue?.count == 4, "\(listed)")
            let recent = try await stack.command("approvals")
            #expect(recent.text.contains("denied by alice") && recent.text.contains("approved_once"), "\(recent)")
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theTerminalAnswersFirstNobodyAnswersAndTheCLIApproves() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules))
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])

            // The terminal answers first: the chat's question closes and loses its buttons.
            try await stack.dm("run: rm -rf dist")
            let question = try await Self.gate(stack, dm, containing: "rm -rf dist")
            try await pi.waitToSee("the terminal's copy") { $0["saw"] == "dialog" && $0["title"]?.stringValue?.contains("rm -rf dist") == true }
            pi.perform(["do": "answer", "value": "Approve once"])
            #expect(try await Self.runEnd(pi, after: 0) == "Done: ran rm -rf dist")
            let closed = try await waitFor("the chat's question closed") { () -> JSONValue? in
                let message = try await stack.fake.message(try #require(question["id"]?.stringValue))
                return message["content"]?.stringValue?.contains("the terminal answered") == true ? message : nil
            }
            #expect(closed["components"]?.arrayValue?.isEmpty ?? true, "\(closed)")

            // Nobody answers: after the timeout the call is denied.
            try await stack.dm("run: rm -rf cache")
            _ = try await Self.gate(stack, dm, containing: "rm -rf cache")
            let timedOut = try await Self.runEnd(pi, after: 1)
            #expect(timedOut.contains("denied bash"), "\(timedOut)")

            // From the terminal's CLI: `questions` lists it, `approve` lets it run.
            try await stack.dm("run: git push")
            _ = try await Self.gate(stack, dm, containing: "git push")
            let open = try await stack.json("questions", StackTerminalTests.sessionID)
            let id = try #require(open.arrayValue?.first { $0["title"]?.stringValue?.contains("bash") == true }?["id"]?.stringValue, "\(open)")
            // Not by its number: the numbers move as gates come and go.
            let byNumber = try await stack.cli(["approve", StackTerminalTests.sessionID, "1"])
            #expect(byNumber.status != 0 && byNumber.stderr.contains("not by its number"), "\(byNumber)")
            for choice in ["1", "approve once"] {
                let answered = try await stack.cli(["answer", StackTerminalTests.sessionID, "1", choice])
                #expect(answered.status != 0 && answered.stderr.contains("not by its number"), "\(choice): \(answered)")
            }
            let approved = try await stack.cli(["approve", StackTerminalTests.sessionID, id])
            #expect(approved.status == 0, "\(approved)")
            #expect(try await Self.runEnd(pi, after: 2) == "Done: ran git push")
            let log = stack.home.read("state/approvals.jsonl")
            #expect(log.contains("\"by\":\"the terminal\"") && log.contains("pi-relayd approve"), "\(log)")
        }
    }

    /// The agent tools: a progress line and a workspace file reach the chat that asked; a path
    /// outside the workspace is refused, and the agent reads why.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theAgentNotifiesAndSendsAFileToTheChat() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])
            try await pi.waitToSee("the footer name the watching messenger") { $0["saw"] == "status" && $0["text"] == "relay: watching on discord" }

            try await stack.dm(#"call: relay_notify {"text":"tests are green, deploying next"}"#)
            try await stack.waitForBotMessage(in: dm, containing: "tests are green, deploying next")
            #expect(try await Self.runEnd(pi, after: 0) == "Done: posted to 1 chat(s)")

            try "# Report\nall good\n".write(toFile: stack.workspace + "/report.md", atomically: true, encoding: .utf8)
            try await stack.dm(#"call: relay_send_file {"path":"report.md","caption":"the nightly report"}"#)
            _ = try await waitFor("report.md in the DM") { () -> JSONValue? in
                try await stack.botMessages(dm).first { message in
                    (message["attachments"]?.arrayValue ?? []).contains { $0["filename"] == "report.md" }
                }
            }
            // Discord posts the text, the caption with it, then uploads the file.
            try await stack.waitForBotMessage(in: dm, containing: "the nightly report")
            #expect(try await Self.runEnd(pi, after: 1) == "Done: sent report.md to 1 chat(s)")

            try await stack.dm(#"call: relay_send_file {"path":"/etc/passwd"}"#)
            let refused = try await Self.runEnd(pi, after: 2)
            #expect(refused.hasPrefix("The tool failed: pi-relayd: ") && refused.contains("outside the session's folder"), "\(refused)")
        }
    }

    /// spawn_session from a guild channel: the new session runs in the folder asked for, in a
    /// thread of its own bound to it, where its first task is answered and its messages are its
    /// prompts. `sessions.spawnLimit: 1` refuses a second while the first lasts; once it has
    /// ended, a spawn from a DM (no threads there) offers a button to watch the new session.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theAgentSpawnsASessionInAThreadOfItsOwn() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.spawnLimit = 1
            try await stack.start(config)
            try FileManager.default.createDirectory(atPath: stack.workspace + "/web", withIntermediateDirectories: true)
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let used = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)], in: StackHome.general)
            #expect(used.text.contains("Watching"), "\(used)")

            try await stack.say(#"call: spawn_session {"cwd":"web","name":"web-tests","prompt":"run the web tests"}"#, in: StackHome.general)
            let done = try await Self.runEnd(pi, after: 0)
            #expect(done.hasPrefix("Done: started session web-tests (id ") && done.hasSuffix("in a new thread, working on its first task"), "\(done)")
            let child = try #require(try await stack.session(named: "web-tests"))
            #expect(child["cwd"]?.stringValue == stack.workspace + "/web", "\(child)")
            let intro = try #require(try await stack.fake.wait("for=message&author=bot&contains=\(StackHome.escaped("spawned by"))")?[0])
            let thread = try #require(intro["channel_id"]?.stringValue)
            #expect(intro["content"]?.stringValue?.contains("Task: run the web tests") == true, "\(intro)")
            let channels = try await stack.fake.get("/channels")["channels"]?.arrayValue ?? []
            let info = try #require(channels.first { $0["id"]?.stringValue == thread }, "\(channels)")
            #expect(info["parent_id"]?.stringValue == StackHome.general && info["name"] == "web-tests", "\(info)")
            try await stack.waitForBotMessage(in: thread, containing: "Echo: run the web tests")
            try await stack.say("and the lint", in: thread, mention: false)
            try await stack.waitForBotMessage(in: thread, containing: "Echo: and the lint")
            #expect(try await stack.json("last", "web-tests")["text"] == "Echo: and the lint")

            try await stack.say(#"call: spawn_session {"cwd":"web","name":"second"}"#, in: StackHome.general)
            let refused = try await Self.runEnd(pi, after: 1)
            #expect(refused.hasPrefix("The tool failed: pi-relayd: ") && refused.contains("sessions.spawnLimit: 1"), "\(refused)")
            #expect(try await stack.session(named: "second") == nil)

            #expect(try await stack.cli(["end", "web-tests"]).status == 0)
            // Idle first: a DM prompt sent while that run is still going would be its follow-up,
            // and the run's spawns belong to the chat whose prompt started it.
            try await stack.waitForState(StackTerminalTests.sessionID, "idle")
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])
            try await stack.dm(#"call: spawn_session {"cwd":"web","name":"from-dm"}"#)
            let fallback = try #require(try await stack.waitForBotMessage(in: dm, containing: "started from-dm").first)
            #expect(fallback["content"]?.stringValue?.contains("a direct message has no threads") == true, "\(fallback)")
            #expect(try await Self.runEnd(pi, after: 2).contains("without a thread"))
            let watch = try #require(StackHome.button("Watch from-dm", in: fallback), "\(fallback)")
            let watching = try await stack.reply(to: try await stack.click(watch, on: try #require(fallback["id"]?.stringValue)))
            #expect(watching.text.contains("Watching from-dm"), "\(watching)")
        }
    }

    /// Spawned sessions: the child gets the extension with its session id and gates, and the
    /// daemon fails a gate closed when no chat can answer it.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func spawnedChildrenLoadTheExtensionAndAGateWithNoChatIsDenied() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules))
            let id = try await stack.newSession("spawned")
            let summary = try #require(try await stack.sessions().first { $0["id"]?.stringValue == id })
            let pid = try #require(summary["pid"]?.intValue)
            let argv = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")).split(separator: 0).map {
                String(decoding: $0, as: UTF8.self)
            }
            let flag = try #require(argv.firstIndex(of: "-e"), "\(argv)")
            #expect(argv[flag + 1] == RepoPaths.root + "/extension/pi-relayd/index.ts", "the entry file of the folder: \(argv)")
            let environment = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/environ")).split(separator: 0).map {
                String(decoding: $0, as: UTF8.self)
            }
            #expect(environment.contains("PI_RELAYD_SESSION=\(id)"))
            let gates = try #require(environment.first { $0.hasPrefix("PI_RELAYD_APPROVALS=") }).dropFirst("PI_RELAYD_APPROVALS=".count)
            #expect(try JSONValue.parse(String(gates))["rules"]?.arrayValue?.count == 2)

            // What the extension in that child asks when a call matches: no chat watches, so no.
            let child = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { child.hangUp() }
            child.send([
                "id": "g1", "method": "approval",
                "params": ["session": .string(id), "id": "q-1", "toolName": "bash", "input": ["command": "rm -rf /"], "rule": "rm-rf"],
            ])
            let answer = try await child.next("the decision") { $0["id"] == "g1" }
            #expect(answer["result"]?["allowed"] == false && answer["result"]?["outcome"] == "nobody_to_ask", "\(answer)")
            #expect(stack.home.read("state/approvals.jsonl").contains("nobody_to_ask"))
        }
    }
}

extension StackApprovalTests {
    /// `/reset` while a run waits at a gate: pi's `new_session` aborts the run first (pi-rpc
    /// spec §5), and a gate holds pi's tool_call through an abort (pi extension spec §11 trap
    /// 12), so the gate is closed, denied, before `new_session` is sent; the chat's card says why.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aResetWhileAGateWaitsClosesTheGateFirst() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules(timeoutSeconds: 60)))
            let id = try await stack.newSession("resetting")
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(id)])
            try await stack.dm("!scenario slow 100 100")
            try await stack.waitForState(id, "busy")

            // The child's extension asks for the gate of a matching call, as it would.
            let child = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { child.hangUp() }
            child.send([
                "id": "g1", "method": "approval",
                "params": ["session": .string(id), "id": "q-reset", "toolName": "bash", "input": ["command": "rm -rf build"], "rule": "rm-rf"],
            ])
            let question = try await Self.gate(stack, dm, containing: "rm -rf build")
            // In a DM a command also works as plain text (/reset is not a DM slash command).
            _ = try await stack.dm("/reset")
            let answer = try await child.next("the decision", timeout: .seconds(20)) { $0["id"] == "g1" }
            #expect(answer["result"]?["allowed"] == false, "\(answer)")
            let closed = try await waitFor("the chat's card closed") { () -> JSONValue? in
                let message = try await stack.fake.message(try #require(question["id"]?.stringValue))
                return (message["components"]?.arrayValue?.isEmpty ?? true) ? message : nil
            }
            #expect(closed["content"]?.stringValue?.contains("replaced") == true, "\(closed)")
        }
    }

    /// An approval question open when the daemon is killed: its call dies with the pi that
    /// waited on it (the extension denies what it cannot ask about), so after the restart the
    /// card is closed as a dialog's is, its buttons gone, rather than left pressable for good.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anApprovalOpenWhenTheDaemonIsKilledIsClosedAfterTheRestart() async throws {
        try await StackHome.with { stack in
            let config = StackConfig(extra: Self.rules(timeoutSeconds: 120))
            let doomed = try await stack.start(config, doomed: true)
            let id = try await stack.newSession("gated")
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(id)])
            let child = try ScriptedTerminal(socket: stack.home.socketPath)
            child.send([
                "id": "g1", "method": "approval",
                "params": [
                    "session": .string(id), "id": "q-g1", "toolName": "bash", "input": ["command": "git push origin main"], "rule": "git-push",
                ],
            ])
            let card = try await Self.gate(stack, dm, containing: "git push origin main")
            let message = try #require(card["id"]?.stringValue)
            doomed.signal(SIGKILL)
            #expect(await doomed.waitForExit() == .signaled(SIGKILL))
            child.hangUp()

            try await stack.start(config, freshCommands: false)
            try await stack.waitForBotMessage(in: dm, containing: "pi-relayd was restarted", timeout: 90)
            let closed = try await stack.fake.message(message)
            #expect(closed["components"]?.arrayValue?.isEmpty == true, "no buttons left: \(closed)")
        }
    }

    /// "Approve for session" in a session pi-relayd started holds for that conversation: after
    /// `/reset` the same rule is asked again, as a terminal pi's is after `/new`. It held on, and
    /// a `git push` in a conversation nobody approved it for went through unasked.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func approvedForSessionEndsWithTheConversation() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules(timeoutSeconds: 60)))
            let id = try await stack.newSession("scoped")
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(id)])
            func ask(_ request: String, _ command: String) throws -> ScriptedTerminal {
                let child = try ScriptedTerminal(socket: stack.home.socketPath)
                child.send([
                    "id": .string(request), "method": "approval",
                    "params": [
                        "session": .string(id), "id": .string("q-" + request), "toolName": "bash", "input": ["command": .string(command)],
                        "rule": "git-push",
                    ],
                ])
                return child
            }
            let first = try ask("g1", "git push origin main")
            defer { first.hangUp() }
            _ = try await Self.press(stack, "Approve for session", on: try await Self.gate(stack, dm, containing: "git push origin main"))
            #expect(try await first.next("the first decision") { $0["id"] == "g1" }["result"]?["allowed"] == true)
            let again = try ask("g2", "git push --tags")
            defer { again.hangUp() }
            #expect(try await again.next("the second decision") { $0["id"] == "g2" }["result"]?["outcome"] == "approved_earlier")

            _ = try await stack.dm("/reset")
            try await stack.waitForBotMessage(in: dm, containing: "scoped starts a new conversation")
            let after = try ask("g3", "git push --force")
            defer { after.hangUp() }
            _ = try await Self.press(stack, "Deny", on: try await Self.gate(stack, dm, containing: "git push --force"))
            let third = try await after.next("the third decision") { $0["id"] == "g3" }
            #expect(third["result"]?["allowed"] == false, "asked again after /reset: \(third)")
        }
    }

    /// A follow-up from another chat runs inside the same run (pi-rpc spec §5): from the moment
    /// pi takes it, the run's gates are asked in the chat that sent it. They went to the chat
    /// whose prompt started the run, where a stranger's "Approve" could pass a command that chat
    /// never asked for, while the sender saw nothing.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aGateAfterAnotherChatsFollowUpIsAskedInThatChat() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules(timeoutSeconds: 60)))
            let id = try await stack.newSession("shared")
            let alice = try await stack.dmChannel()
            let bob = try await stack.dmChannel(.bob)
            _ = try await stack.command("use", ["session": .string(id)])
            _ = try await stack.command("use", ["session": .string(id)], from: .bob)
            try await stack.dm("!scenario slow 20 100")
            try await stack.waitForState(id, "busy")
            try await stack.dm("the follow-up from bob", from: .bob)
            try await stack.waitForBotMessage(in: bob, containing: "Echo: the follow-up from bob")

            let child = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { child.hangUp() }
            child.send([
                "id": "g1", "method": "approval",
                "params": [
                    "session": .string(id), "id": "q-follow", "toolName": "bash", "input": ["command": "git push origin main"], "rule": "git-push",
                ],
            ])
            _ = try await Self.press(stack, "Deny", on: try await Self.gate(stack, bob, containing: "git push origin main"), from: .bob)
            #expect(try await child.next("the decision") { $0["id"] == "g1" }["result"]?["allowed"] == false)
            let inAlices = try await stack.botMessages(alice).filter { $0["content"]?.stringValue?.contains("git push origin main") == true }
            #expect(inAlices.isEmpty, "asked only where the follow-up came from: \(inAlices)")
        }
    }

    /// `approval-decided` is the terminal dialog's word, and "Approve for session" opens the
    /// rule for the rest of the conversation. Any process of the owner's reaches the control
    /// socket, the agent's tools too: it is taken only from the terminal pi attached to the
    /// session (the kernel's word on the caller), never for a session pi-relayd started, which
    /// has no terminal dialog. Nor can a caller answer in a chat user's name.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aTerminalDecisionFromAnotherProcessIsRefused() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules(timeoutSeconds: 60)))
            let id = try await stack.newSession("spawned")
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(id)])
            let forged: JSONValue = [
                "session": .string(id), "id": "q-forged", "toolName": "bash", "input": ["command": "rm -rf x"], "rule": "rm-rf",
                "choice": "Approve for session",
            ]
            let forger = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { forger.hangUp() }
            forger.send(["id": "d1", "method": "approval-decided", "params": forged])
            let refused = try await forger.next("the refusal") { $0["id"] == "d1" }
            #expect(refused["error"]?["code"] == "not_authorized", "\(refused)")
            #expect(!stack.home.read("state/approvals.jsonl").contains("q-forged"), "nothing logged")

            // The rule is not open: the next call of it is asked in the chat, and a made-up name
            // does not answer it.
            let child = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { child.hangUp() }
            child.send([
                "id": "g1", "method": "approval",
                "params": ["session": .string(id), "id": "q-next", "toolName": "bash", "input": ["command": "rm -rf y"], "rule": "rm-rf"],
            ])
            _ = try await Self.gate(stack, dm, containing: "rm -rf y")
            let namer = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { namer.hangUp() }
            namer.send([
                "id": "a1", "method": "answer", "params": ["session": .string(id), "id": "q-next", "value": "Approve once", "by": "alice"],
            ])
            let answered = try await namer.next("the answer taken") { $0["id"] == "a1" }
            #expect(answered["error"] == nil, "\(answered)")
            let decision = try await child.next("the decision") { $0["id"] == "g1" }
            #expect(decision["result"]?["allowed"] == true && decision["result"]?["by"] == "terminal", "\(decision)")
        }
    }

    /// The terminal's dialog can decide a gate before the extension's request for the chats
    /// reaches the daemon. Then nothing is posted (no question left in the chat until its
    /// timeout), and the decision is logged once, as the terminal's.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aGateTheTerminalDecidedFirstIsNotPostedToTheChats() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules))
            // A terminal pi: this test's process, attached as the extension attaches.
            let terminal = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { terminal.hangUp() }
            let attached = try await terminal.attach(piSessionID: "0c5f7f0e-raced", cwd: stack.workspace)
            let id = try #require(attached["result"]?["sessionID"]?.stringValue, "\(attached)")
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(id)])
            // One request per connection, as the extension makes them.
            let first = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { first.hangUp() }
            let gate: JSONValue = ["session": .string(id), "id": "q-race", "toolName": "bash", "input": ["command": "rm -rf dist"], "rule": "rm-rf"]
            var decided = gate
            decided["choice"] = "Deny"
            first.send(["id": "d1", "method": "approval-decided", "params": decided])
            let logged = try await first.next("the terminal's decision logged") { $0["id"] == "d1" }
            #expect(logged["result"]?["outcome"] == "denied", "\(logged)")
            let second = try ScriptedTerminal(socket: stack.home.socketPath)
            defer { second.hangUp() }
            second.send(["id": "g1", "method": "approval", "params": gate])
            let answer = try await second.next("the late request") { $0["id"] == "g1" }
            #expect(answer["result"]?["outcome"] == "terminal_only", "\(answer)")
            try await Task.sleep(for: .seconds(1))
            let posted = try await stack.botMessages(dm).filter { $0["content"]?.stringValue?.contains("rm -rf dist") == true }
            #expect(posted.isEmpty, "\(posted)")
            let log = stack.home.read("state/approvals.jsonl").split(separator: "\n").filter { $0.contains("q-race") || $0.contains("rm -rf dist") }
            #expect(log.count == 1 && log[0].contains("\"by\":\"the terminal\""), "\(log)")
        }
    }
}
