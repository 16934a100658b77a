import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A terminal session through the real daemon and CLI, with the extension's side of the attach
/// protocol played by `ScriptedTerminal` (the real extension under a fake pi host is tested in
/// extension/test/ and in StackTerminalTests).
@Suite struct TerminalSessionTests {
    static let piSessionID = "0c5f7f0e-3d0e-4b7e-9a59-5d2d1c3e4f50"

    @Test func attachPromptFromTheCLIDetachAndAttachAgain() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let terminal = try ScriptedTerminal(socket: s.home.socketPath)
            let answer = try await terminal.attach(piSessionID: Self.piSessionID, cwd: s.project)
            let result = try #require(answer["result"], "\(answer)")
            #expect(result["sessionID"] == "t-0c5f7f0e3d0e")
            #expect(result["session"] == "project", "named after its folder")
            let status = try await terminal.next("the relay status") { $0["type"] == "relay_status" }
            #expect(status["watchers"] == [], "nobody watches yet")

            let listed = try #require(try await s.summary("t-0c5f7f0e3d0e"))
            #expect(listed["kind"] == "terminal")
            #expect(listed["state"] == "idle")
            #expect(listed["pid"] == JSONValue(Int(getpid())))
            #expect(listed["model"] == "anthropic/claude-sonnet-4-5")
            #expect(try await s.plain("sessions").contains("\tidle\t\(s.project)\tanthropic/claude-sonnet-4-5\tterminal session"))

            // A prompt from the CLI reaches the terminal's pi as pi's RPC prompt; its run streams back.
            async let sent = s.json("send", "project", "what is in this folder?")
            let prompt = try await terminal.command("prompt")
            #expect(prompt["message"] == "what is in this folder?")
            terminal.respond(to: prompt)
            terminal.run(answer: "Two files and a README.", prompt: "what is in this folder?")
            #expect(try await sent["status"] != nil)
            async let last = s.last("t-0c5f7f0e3d0e")
            terminal.respond(to: try await terminal.command("get_last_assistant_text"), data: ["text": "Two files and a README."])
            #expect(try await last == "Two files and a README.")
            try await waitUntil("the run is over") { try await s.summary("t-0c5f7f0e3d0e")?["state"] == "idle" }

            // Typed at the terminal: in the history, for the chats to echo.
            terminal.send(["type": "terminal_input", "text": "and now the tests", "images": 0])
            try await waitUntil("the terminal prompt is in the history") {
                try await s.history("t-0c5f7f0e3d0e").contains { $0["type"] == "terminal_input" && $0["text"] == "and now the tests" }
            }

            // While attached, only the terminal ends it.
            let refused = try await s.run("end", "project")
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("terminal session"), "\(refused.stderr)")

            // pi closed: offline, and prompts are refused with a clear word instead of queued.
            terminal.hangUp()
            try await s.waitForState("t-0c5f7f0e3d0e", "offline")
            let offline = try await s.run("send", "project", "still there?")
            #expect(offline.status != 0)
            #expect(offline.stderr.contains("not attached"), "\(offline.stderr)")

            // The same pi session attaches again under the same id.
            let again = try ScriptedTerminal(socket: s.home.socketPath)
            let second = try await again.attach(piSessionID: Self.piSessionID, cwd: s.project)
            #expect(second["result"]?["sessionID"] == "t-0c5f7f0e3d0e")
            try await s.waitForState("t-0c5f7f0e3d0e", "idle")
            #expect(try await s.sessions().filter { $0["kind"] == "terminal" }.count == 1, "one session, not two")
            again.hangUp()
            try await s.waitForState("t-0c5f7f0e3d0e", "offline")
            #expect(try await s.plain("end", "project").contains("ended"), "an offline terminal session can be forgotten")
        }
    }

    /// The daemon killed with -9 mid-run: the terminal's pi is the user's and is never signalled
    /// (its pid is not saved as a child's); the session comes back under its id when the
    /// extension attaches again, and the run cut off by the gap is over.
    @Test func daemonKilledNineThenTheSameSessionAttachesAgain() async throws {
        try await SessionHome.with { s in
            let doomed = try Daemon(home: s.home, environment: s.home.environment(), number: 91)
            try await doomed.waitUntilListening()
            // The "terminal pi" is a sleeping child of the test: the daemon must leave it alone.
            let pi = try SpawnedProcess("/bin/sleep", ["300"], environment: [:], stdoutPath: "/dev/null", stderrPath: "/dev/null")
            defer { kill(pi.pid, SIGKILL) }
            let terminal = try ScriptedTerminal(socket: s.home.socketPath)
            _ = try #require(
                try await terminal.attach(piSessionID: Self.piSessionID, cwd: s.project, extra: ["pid": JSONValue(Int(pi.pid))])["result"])
            terminal.send(["type": "agent_start"])
            terminal.send(["type": "message_update", "assistantMessageEvent": ["type": "text_delta", "contentIndex": 0, "delta": "Half an ans"]])
            try await s.waitForState("t-0c5f7f0e3d0e", "busy")
            let saved = try String(contentsOfFile: s.sessionsFile, encoding: .utf8)
            #expect(saved.contains("\"piSessionID\" : \"\(Self.piSessionID)\""), "\(saved)")
            #expect(!saved.contains("\"pid\""), "a terminal's pid is never saved: a restart would take it for an orphan")

            doomed.signal(SIGKILL)
            _ = await doomed.waitForExit()
            try await waitUntil("the extension's connection ends with the daemon") { terminal.hasEnded }

            try await s.start()
            let offline = try #require(try await s.summary("t-0c5f7f0e3d0e"))
            #expect(offline["state"] == "offline", "restored, waiting for its terminal: \(offline)")
            let back = try ScriptedTerminal(socket: s.home.socketPath)
            _ = try #require(try await back.attach(piSessionID: Self.piSessionID, cwd: s.project, extra: ["pid": JSONValue(Int(pi.pid))])["result"])
            let attached = try await s.waitForState("t-0c5f7f0e3d0e", "idle")
            #expect(attached["pid"] == JSONValue(Int(pi.pid)))
            #expect(ProcessTable.isRunning(pi.pid), "the terminal's pi was not touched")
            #expect(!s.home.daemonLog.contains("from before the restart is still running"))
            back.hangUp()
        }
    }

    /// A schedule's run due as pi-relayd starts (missed=run catches it up) waits for the terminal's
    /// pi to reconnect, as it does within seconds (the extension retries), rather than being lost.
    @Test func aScheduledRunWaitsForTheTerminalToReconnect() async throws {
        try await SessionHome.with { s in
            let daemon = try await s.start()
            let pi = try SpawnedProcess("/bin/sleep", ["300"], environment: [:], stdoutPath: "/dev/null", stderrPath: "/dev/null")
            defer { kill(pi.pid, SIGKILL) }
            let terminal = try ScriptedTerminal(socket: s.home.socketPath)
            _ = try #require(
                try await terminal.attach(piSessionID: Self.piSessionID, cwd: s.project, extra: ["pid": JSONValue(Int(pi.pid))])["result"])
            let added = try await s.run("schedule", "add", "project", "every", "1h", "missed=run", "catch", "up")
            #expect(added.status == 0, "\(added)")
            _ = try await s.run("stop")
            _ = await daemon.waitForExit()
            try await waitUntil("the extension's connection ends with the daemon") { terminal.hasEnded }
            let file = s.home.path + "/state/schedules.json"
            let overdue = s.home.read("state/schedules.json").replacingOccurrences(
                of: #""next" : "[^"]*""#, with: "\"next\" : \"2020-01-01T00:00:00Z\"", options: .regularExpression)
            try overdue.write(toFile: file, atomically: true, encoding: .utf8)

            try await s.start()
            try await Task.sleep(for: .seconds(2))
            let back = try ScriptedTerminal(socket: s.home.socketPath)
            _ = try #require(try await back.attach(piSessionID: Self.piSessionID, cwd: s.project, extra: ["pid": JSONValue(Int(pi.pid))])["result"])
            let prompt = try await back.command("prompt")
            #expect(prompt["message"] == "catch up", "\(prompt)")
            back.respond(to: prompt)
            back.hangUp()
        }
    }

    /// A question from the terminal's ask_user tool: answered from outside, the answer goes to
    /// the extension; answered at the terminal first, it is closed here.
    @Test func questionsAnsweredOnEitherSide() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let terminal = try ScriptedTerminal(socket: s.home.socketPath)
            _ = try #require(try await terminal.attach(piSessionID: Self.piSessionID, cwd: s.project)["result"])
            terminal.send([
                "type": "extension_ui_request", "id": "q1", "method": "select", "title": "Which database?", "options": ["sqlite", "postgres"],
            ])
            try await s.waitForState("t-0c5f7f0e3d0e", "waiting-for-answer")
            #expect(try await s.plain("answer", "project", "1", "2") == "answered\n")
            let response = try await terminal.command("extension_ui_response")
            #expect(response["id"] == "q1")
            #expect(response["value"] == "postgres")
            try await s.waitForState("t-0c5f7f0e3d0e", "idle")

            terminal.send(["type": "extension_ui_request", "id": "q2", "method": "confirm", "title": "Deploy?", "message": "to production"])
            try await s.waitForState("t-0c5f7f0e3d0e", "waiting-for-answer")
            terminal.send(["type": "extension_ui_closed", "id": "q2", "by": "terminal"])
            try await s.waitForState("t-0c5f7f0e3d0e", "idle")
            let late = try await s.run("answer", "project", "q2", "yes")
            #expect(late.status != 0, "the terminal answered first: \(late)")
            #expect(try await s.history("t-0c5f7f0e3d0e").contains { $0["type"] == "question_answered" && $0["by"] == "terminal" })

            // Moved to the terminal (no chat watched a multi-line question): closed here, not answered.
            terminal.send(["type": "extension_ui_request", "id": "q3", "method": "editor", "title": "Describe it"])
            try await s.waitForState("t-0c5f7f0e3d0e", "waiting-for-answer")
            terminal.send(["type": "extension_ui_closed", "id": "q3", "by": "moved"])
            try await s.waitForState("t-0c5f7f0e3d0e", "idle")
            #expect(try await s.run("answer", "project", "q3", "text").status != 0)
            #expect(try await s.history("t-0c5f7f0e3d0e").contains { $0["type"] == "question_cancelled" && $0["by"] == "moved" })
            terminal.hangUp()
        }
    }

    /// A globally installed extension loads in the daemon's own pi children too; the marker in
    /// their environment keeps it from attaching a second session for them.
    @Test func spawnedPiChildrenCarryTheMarkerThatKeepsTheExtensionPassive() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "spawned")
            let summary = try #require(try await s.summary(id))
            #expect(summary["kind"] == "spawned")
            let pid = try #require(summary["pid"]?.intValue)
            let environment = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/environ"))
            #expect(environment.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "PI_RELAYD_CHILD=1" })
        }
    }

    @Test func aBadOrOldRegistrationIsRefusedWithItsReason() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let old = try ScriptedTerminal(socket: s.home.socketPath)
            let refused = try await old.attach(piSessionID: Self.piSessionID, cwd: s.project, extra: ["piVersion": "0.57.0"])
            #expect(refused["error"]?["code"] == "unsupported", "\(refused)")
            #expect(refused["error"]?["message"]?.stringValue?.contains("0.58.1") == true)
            let nameless = try ScriptedTerminal(socket: s.home.socketPath)
            let bad = try await nameless.attach(piSessionID: "", cwd: s.project)
            #expect(bad["error"]?["code"] == "invalid_params", "\(bad)")
            #expect(try await s.sessions().isEmpty, "nothing registered")
        }
    }
}
