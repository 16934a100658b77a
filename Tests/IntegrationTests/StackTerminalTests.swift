import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 13 through everything real: the daemon and its plugins against the fake Discord, and an
/// interactive pi played by the fake pi extension host running the real extension/pi-relayd/index.ts
/// under Node 24 (`HostedPi`). Named Stack… so that a whole sanitizer run leaves it out, as it
/// does the other stack suites (Makefile, SANITIZE_WHOLE_SKIP): among ~90 tests under TSan on two
/// cores its first test passed its 5-minute limit.
@Suite(.serialized) struct StackTerminalTests {
    static let piSessionID = "5b1d7a20-6c4e-4f0a-8e2b-9d3c4b5a6f70"
    static let sessionID = "t-5b1d7a206c4e"

    /// Starts the host in the stack's workspace and waits until its session is attached.
    static func attach(_ stack: StackHome, name: String = "pi1") async throws -> HostedPi {
        let pi = try HostedPi(home: stack.home, name: name, cwd: stack.workspace, sessionID: Self.piSessionID)
        try await waitUntil("the terminal session is attached", timeout: .seconds(30)) {
            try await stack.sessions().contains { $0["id"]?.stringValue == Self.sessionID && $0["state"] == "idle" }
        }
        return pi
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aDiscordPromptIsAnsweredInTheTerminalAndATerminalPromptIsMirrored() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await Self.attach(stack)
            defer { pi.stop() }
            let listed = try #require(try await stack.sessions().first { $0["id"]?.stringValue == Self.sessionID })
            #expect(listed["kind"] == "terminal")
            try await pi.waitToSee("the footer say it is attached") { $0["saw"] == "status" && $0["text"]?.stringValue?.hasPrefix("relay:") == true }

            let dm = try await stack.dmChannel()
            let used = try await stack.command("use", ["session": .string(Self.sessionID)])
            #expect(used.text.contains(try #require(listed["name"]?.stringValue)), "\(used)")
            try await pi.waitToSee("the footer name the watching messenger") { $0["saw"] == "status" && $0["text"] == "relay: watching on discord" }

            // From the phone into the terminal's pi, answered there, the answer back in Discord.
            try await stack.dm("what is in this folder?")
            try await pi.waitToSee("the chat's prompt arrive") { $0["saw"] == "user_message" && $0["text"] == "what is in this folder?" }
            let ran = try await pi.waitToSee("the run end") { $0["saw"] == "run_end" }
            let answer = try #require(ran["text"]?.stringValue)
            try await stack.waitForBotMessage(in: dm, containing: String(answer.suffix(30)))
            #expect(
                try await stack.botMessages(dm).allSatisfy { $0["content"]?.stringValue?.contains("▶ USER") != true },
                "the phone's own prompt is not echoed back")

            // Typed at the desk: shown in Discord as the user's, then its answer.
            pi.type("and now run the tests")
            try await stack.waitForBotMessage(in: dm, containing: "▶ USER: and now run the tests")
            let second = try await pi.waitToSee("the terminal prompt's run end") { $0["saw"] == "run_end" && $0 != ran }
            try await stack.waitForBotMessage(in: dm, containing: String(try #require(second["text"]?.stringValue).suffix(30)))
            #expect(pi.seen.filter { $0["saw"] == "extension_error" }.isEmpty, "the extension threw nothing into pi: \(pi.seen)")

            // For the closing note: both sides of the conversation, as each side saw it.
            let discord = try await stack.fake.transcriptText()
            let lines = discord.split(separator: "\n", omittingEmptySubsequences: false)
            let from = lines.firstIndex { $0.contains("slash alice: /use") } ?? lines.startIndex
            let terminal = pi.seen.map { $0.serialized() }.joined(separator: "\n")
            let transcript =
                "--- Discord (fake) ---\n" + lines[from...].joined(separator: "\n") + "\n--- the terminal (fake pi host) ---\n" + terminal + "\n"
            try transcript.write(toFile: Self.transcript, atomically: true, encoding: .utf8)
            print("--- a terminal session driven from Discord and back (saved to \(Self.transcript)) ---\n\(transcript)--- end ---")
        }
    }

    /// `/new` in the terminal: the new pi session attaches under its own id and the chat that
    /// watched the old one follows it. A second pi in another terminal is a second session.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func newInTheTerminalTakesTheChatAlongAndTwoTerminalsAreTwoSessions() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await Self.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(Self.sessionID)])

            pi.perform(["do": "new"])
            let switched = try await pi.waitToSee("the new pi session") { $0["saw"] == "session" && $0["reason"] == "new" }
            let newPiID = try #require(switched["sessionId"]?.stringValue)
            let newID = "t-" + String(newPiID.filter(\.isHexDigit).prefix(12))
            try await waitUntil("the new pi session is attached") {
                try await stack.sessions().contains { $0["id"]?.stringValue == newID && $0["state"] == "idle" }
            }
            try await stack.dm("a prompt for the new conversation")
            try await pi.waitToSee("the prompt in the new session") {
                $0["saw"] == "user_message" && $0["text"] == "a prompt for the new conversation"
            }
            try await stack.waitForBotMessage(in: dm, containing: "Echo: a prompt for the new conversation")
            let old = try #require(try await stack.sessions().first { $0["id"]?.stringValue == Self.sessionID })
            #expect(old["state"] == "offline", "the old pi session is no longer attached: \(old)")

            let other = try HostedPi(home: stack.home, name: "pi2", cwd: stack.workspace, sessionID: "9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4")
            defer { other.stop() }
            try await waitUntil("the second terminal is a session of its own") {
                try await stack.sessions().contains { $0["id"]?.stringValue == "t-9e8d7c6b5a49" && $0["state"] == "idle" }
            }
            #expect(try await stack.sessions().filter { $0["kind"] == "terminal" }.count == 3, "two terminals and the old pi session")
        }
    }

    /// The chat's controls work on a terminal session as on a spawned one: a tool's summary
    /// shows, /model switches the terminal pi's model, /stop aborts its run.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func toolsModelAndStopFromDiscordOnATerminalSession() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await Self.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(Self.sessionID)])

            try await stack.dm("work: 3 x 50")
            try await stack.waitForBotMessage(in: dm, containing: "🔧")
            try await pi.waitToSee("the tool run end") { $0["saw"] == "run_end" && $0["text"]?.stringValue?.hasPrefix("Done:") == true }

            let switched = try await stack.command("model", ["model": "openai/gpt-5"])
            #expect(switched.text.contains("now uses openai/gpt-5"), "\(switched)")
            try await waitUntil("the terminal pi uses the new model") {
                try await stack.sessions().first { $0["id"]?.stringValue == Self.sessionID }?["model"] == "openai/gpt-5"
            }

            try await stack.dm("slow: " + Array(repeating: "word", count: 200).joined(separator: " "))
            try await pi.waitToSee("the slow run start") { $0["saw"] == "user_message" && $0["text"]?.stringValue?.hasPrefix("slow:") == true }
            try await stack.waitForState(Self.sessionID, "busy")
            let stopped = try await stack.command("stop")
            #expect(stopped.text.contains("Stopped"), "\(stopped)")
            try await stack.waitForState(Self.sessionID, "idle")
            try await stack.waitForBotMessage(in: dm, containing: "⏹ Aborted")
        }
    }

    /// The question's own message (the one with buttons), not the tool line that names it.
    static func question(_ stack: StackHome, _ channel: String, containing text: String) async throws -> JSONValue {
        try await waitFor("a question with buttons: \(text)") {
            try await stack.botMessages(channel).first {
                $0["content"]?.stringValue?.contains(text) == true && !($0["components"]?.arrayValue?.isEmpty ?? true)
            }
        }
    }

    static var transcript: String { BuildProducts.directory + "/terminal-transcript.txt" }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aQuestionAnsweredOnOneSideClosesOnTheOther() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await Self.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(Self.sessionID)])

            // Answered in Discord: the terminal dialog is dismissed and the agent gets Discord's answer.
            try await stack.dm("ask: Which database? | sqlite | postgres")
            let question = try await Self.question(stack, dm, containing: "Which database?")
            try await pi.waitToSee("the dialog open at the terminal too") {
                $0["saw"] == "dialog" && $0["title"]?.stringValue?.contains("Which database?") == true
            }
            let postgres = try #require(StackHome.button("2. postgres", in: question), "\(question)")
            _ = try await stack.reply(to: try await stack.click(postgres, on: try #require(question["id"]?.stringValue)))
            try await pi.waitToSee("the terminal dialog dismissed") { $0["saw"] == "dialog_closed" && $0["by"] == "abort" }
            let ran = try await pi.waitToSee("the agent go on with the answer") { $0["saw"] == "run_end" }
            #expect(ran["text"]?.stringValue?.contains("postgres") == true, "\(ran)")

            // Answered at the terminal: the Discord question is closed and loses its buttons.
            try await stack.dm("ask: Deploy now? | yes | no")
            let second = try await Self.question(stack, dm, containing: "Deploy now?")
            try await pi.waitToSee("the second dialog") { $0["saw"] == "dialog" && $0["title"]?.stringValue?.contains("Deploy now?") == true }
            pi.perform(["do": "answer", "value": "no"])
            let secondID = try #require(second["id"]?.stringValue)
            let closed = try await waitFor("the Discord question closed") { () -> JSONValue? in
                let message = try await stack.fake.message(secondID)
                return message["content"]?.stringValue?.contains("answered in the terminal") == true ? message : nil
            }
            #expect(closed["components"]?.arrayValue?.isEmpty ?? true, "no buttons left: \(closed)")
        }
    }

    /// A picture sent in Discord reaches the terminal's pi through the attachments plugin, a file
    /// of the terminal's folder goes out with /file, and one outside it is refused. /forget
    /// refuses a session whose pi is still attached.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func picturesInFilesOutAndForgetRefusedWhileAttached() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await Self.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(Self.sessionID)])

            let png = Data(E2ESamples.png)
            try await stack.fake.post(
                "/messages",
                [
                    "user_id": .string(StackUser.alice.id), "username": .string(StackUser.alice.name), "dm": true,
                    "content": "what is in this picture?",
                    "attachments": [["filename": "shot.png", "content_type": "image/png", "data_b64": .string(png.base64EncodedString())]],
                ])
            let seen = try await pi.waitToSee("the picture in the terminal's conversation") {
                $0["saw"] == "user_message" && $0["text"]?.stringValue?.hasPrefix("what is in this picture?") == true
            }
            let images = seen["images"]?.arrayValue ?? []
            #expect(images.count == 1 && images.first?["mimeType"] == "image/png", "\(seen)")
            #expect(images.first?["bytes"]?.intValue == png.count, "the picture arrived whole: \(seen)")

            try "all green\n".write(toFile: stack.workspace + "/report.txt", atomically: true, encoding: .utf8)
            // Discord has no /file slash command: typed, it is a chat command all the same.
            try await stack.dm("/file report.txt")
            _ = try await waitFor("report.txt in the DM") { () -> JSONValue? in
                try await stack.botMessages(dm).flatMap { $0["attachments"]?.arrayValue ?? [] }.first { $0["filename"] == "report.txt" }
            }
            try await stack.dm("/file /etc/passwd")
            try await stack.waitForBotMessage(in: dm, containing: "outside the session's folder")

            let refused = try await stack.command("forget")
            #expect(refused.text.contains("attached"), "\(refused)")
            #expect(try await stack.sessions().contains { $0["id"]?.stringValue == Self.sessionID })
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theDaemonKilledNineIsReattachedAndPiExitingGoesOffline() async throws {
        try await StackHome.with { stack in
            let doomed = try await stack.start(doomed: true)
            let pi = try await Self.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(Self.sessionID)])
            // A run in flight when the daemon dies is reported cut off once it is back, and the
            // rest of it (15 s at 100 ms a word) still reaches the chat after the re-attach.
            try await stack.dm("slow: " + (1...150).map { "word\($0)" }.joined(separator: " "))
            try await stack.waitForState(Self.sessionID, "busy")
            // The run is on disk before it shows anywhere; only a saved run can be reported.
            try await waitUntil("the run in flight is saved") { stack.home.read("state/sessions.json").contains("\"activeRun\"") }

            doomed.signal(SIGKILL)
            _ = await doomed.waitForExit()
            try await pi.waitToSee("the footer say offline") { $0["saw"] == "status" && $0["text"] == "relay: offline" }

            try await stack.start(freshCommands: false)
            let back = ContinuousClock.now
            let attached = try await waitFor("the session is attached again", timeout: .seconds(10), every: .milliseconds(50)) {
                try await stack.sessions().first { $0["id"]?.stringValue == Self.sessionID && $0["state"] != "offline" }
            }
            let took = ContinuousClock.now - back
            #expect(took < .seconds(2), "re-attached \(took) after the daemon was back")
            #expect(attached["state"] == "busy", "the run still going in the terminal shows: \(attached)")
            try await stack.waitForBotMessage(in: dm, containing: "the answer in progress was cut off")
            let ran = try await pi.waitToSee("the slow run end in the terminal", timeout: .seconds(60)) { $0["saw"] == "run_end" }
            #expect(ran["text"]?.stringValue?.hasSuffix("word150") == true, "\(ran)")
            try await stack.waitForBotMessage(in: dm, containing: "word148 word149 word150")
            try await stack.waitForState(Self.sessionID, "idle")

            try await stack.dm("still with me?")
            try await pi.waitToSee("the prompt after the restart") { $0["saw"] == "user_message" && $0["text"] == "still with me?" }

            // pi quits: the session is offline and the chat hears the terminal session ended.
            pi.perform(["do": "quit"])
            try await stack.waitForState(Self.sessionID, "offline")
            try await stack.waitForBotMessage(in: dm, containing: "ended: pi was closed in the terminal")
            let forgot = try await stack.command("forget")
            #expect(forgot.text.contains("Forgot"), "\(forgot)")
            #expect(try await stack.sessions().contains { $0["id"]?.stringValue == Self.sessionID } == false, "gone from the list")
        }
    }
}
