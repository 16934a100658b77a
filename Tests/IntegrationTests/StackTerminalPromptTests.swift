import Foundation
import PiRelaySDK
import Testing

/// Nothing a chat sends to a terminal session is lost (the pi extension spec's §11, traps 6 and
/// 7): the real daemon and plugins, the fake Discord, and the shipped extension in the fake pi
/// extension host.
@Suite(.serialized) struct StackTerminalPromptTests {
    /// Trap 6: pi fails a prompt without an API key where no extension can see it. The chat's
    /// message is answered with the reason and what to do, within 5 s, never a silent "accepted".
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aChatPromptWithoutAnAPIKeyIsAnsweredWithTheReasonWithinFiveSeconds() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])

            // The terminal's model has no key (its key was removed, or it was picked anyway).
            pi.perform(["do": "model", "provider": "nokey", "id": "model-without-key"])
            try await waitUntil("the daemon knows the terminal's new model") {
                try await stack.sessions().first { $0["id"]?.stringValue == StackTerminalTests.sessionID }?["model"]
                    == "nokey/model-without-key"
            }
            let sent = ContinuousClock.now
            let prompt = try await stack.dm("fix the failing test")
            let replies = try await stack.waitForBotMessage(
                in: dm, containing: "no API key for nokey: run /login in the terminal", timeout: 20)
            // Well inside the 60 s a command may take: refused at once, not timed out.
            #expect(ContinuousClock.now - sent < .seconds(20), "within 20 s")
            let reply = try #require(replies.first)
            #expect(reply["reference"]?["message_id"] == prompt["id"], "an answer to that prompt: \(reply)")
            #expect(!pi.seen.contains { $0["saw"] == "user_message" && $0["text"] == "fix the failing test" }, "nothing reached pi")
            #expect(try await stack.sessions().first { $0["id"]?.stringValue == StackTerminalTests.sessionID }?["state"] == "idle")
        }
    }

    /// The same refusal when the message answers the question a final ended with (guided
    /// answers): the reason, not "could not take this message (internal)".
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anAnswerToAFinalsQuestionWithoutAnAPIKeyIsAnsweredWithTheReason() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])
            try await stack.dm("which test should I fix?")
            try await stack.waitForBotMessage(in: dm, containing: "Answer with **Custom answer**, or just reply.")

            pi.perform(["do": "model", "provider": "nokey", "id": "model-without-key"])
            try await waitUntil("the daemon knows the terminal's new model") {
                try await stack.sessions().first { $0["id"]?.stringValue == StackTerminalTests.sessionID }?["model"]
                    == "nokey/model-without-key"
            }
            try await stack.dm("the parser one")
            try await stack.waitForBotMessage(in: dm, containing: "no API key for nokey: run /login in the terminal", timeout: 20)
            #expect(!(try await stack.botMessages(dm)).contains { $0["content"]?.stringValue?.contains("could not take this message") == true })
        }
    }

    /// Trap 7: pi is idle while it compacts, and a prompt sent then runs unseen, is not saved,
    /// and is overwritten by the compaction. A chat prompt during a terminal `/compact` waits
    /// and runs, visibly and saved, after it.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aChatPromptDuringATerminalCompactRunsAfterIt() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            // A compaction's summary long enough for a chat message to arrive during it.
            let pi = try HostedPi(
                home: stack.home, name: "pi1", cwd: stack.workspace, sessionID: StackTerminalTests.piSessionID,
                arguments: ["--compaction-ms", "3000"])
            defer { pi.stop() }
            try await waitUntil("the terminal session is attached", timeout: .seconds(30)) {
                try await stack.sessions().contains { $0["id"]?.stringValue == StackTerminalTests.sessionID && $0["state"] == "idle" }
            }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])
            try await stack.dm("something to compact")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: something to compact")

            pi.perform(["do": "compact"])
            try await pi.waitToSee("the compaction start") { $0["saw"] == "compacting" }
            try await stack.dm("and now the next step")
            let compacted = try await pi.waitToSee("the compaction end") { $0["saw"] == "compacted" }
            let ran = try await pi.waitToSee("the chat's prompt run") { $0["saw"] == "user_message" && $0["text"] == "and now the next step" }
            let seen = pi.seen
            let compactedAt = try #require(seen.firstIndex(of: compacted))
            #expect(try #require(seen.firstIndex(of: ran)) > compactedAt, "it ran after the compaction: \(seen)")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: and now the next step")
            try await waitUntil("the chat's prompt is saved in the session file") {
                let file = try? String(contentsOfFile: Self.sessionFile(pi) ?? "", encoding: .utf8)
                return file?.contains("and now the next step") == true
            }
        }
    }

    /// Trap 2: `/new` empties pi's own queues without a word. The chat hears which of its prompts
    /// pi dropped, and is asked about those still waiting in the extension; Send runs them in the
    /// new conversation.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func chatPromptsAtANewInTheTerminalAreReportedAndAskedAbout() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])

            pi.type("slow: " + Array(repeating: "word", count: 80).joined(separator: " "))
            try await stack.waitForState(StackTerminalTests.sessionID, "busy")
            _ = try await stack.command("steer", ["text": "steer for the old conversation"])
            let queued = try #require(try await stack.dm("follow-up for the old conversation")["id"]?.stringValue)
            _ = try await waitFor("the ⏳ on the queued prompt", timeout: .seconds(30)) { () -> Bool? in
                let reactions = try await stack.fake.get("/reactions")["reactions"]?.arrayValue ?? []
                return reactions.contains { $0["message_id"]?.stringValue == queued && $0["op"] == "add" } ? true : nil
            }

            pi.perform(["do": "new"])
            try await stack.waitForBotMessage(in: dm, containing: "pi dropped 1 chat prompt it had queued: “steer for the old conversation”")
            let question = try await StackTerminalTests.question(stack, dm, containing: "1 chat prompt was waiting when the terminal switched")
            let send = try #require(StackHome.button("1. Send", in: question), "\(question)")
            _ = try await stack.reply(to: try await stack.click(send, on: try #require(question["id"]?.stringValue)))
            let switched = try #require(pi.seen.last { $0["saw"] == "session" && $0["reason"] == "new" })
            try await pi.waitToSee("the held prompt run in the new conversation") {
                $0["saw"] == "user_message" && $0["text"] == "follow-up for the old conversation"
            }
            try await stack.waitForBotMessage(in: dm, containing: "Echo: follow-up for the old conversation")
            #expect(!pi.seen.contains { $0["saw"] == "user_message" && $0["text"] == "steer for the old conversation" }, "pi dropped it")
            let file = try String(contentsOfFile: try #require(switched["sessionFile"]?.stringValue), encoding: .utf8)
            #expect(file.contains("follow-up for the old conversation"), "saved in the new conversation")
        }
    }

    /// The terminal's session file, as the host last named it.
    static func sessionFile(_ pi: HostedPi) -> String? {
        pi.seen.last { $0["saw"] == "session" }?["sessionFile"]?.stringValue
    }
}
