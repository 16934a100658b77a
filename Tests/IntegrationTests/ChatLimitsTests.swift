import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 17 point 10 through the command layer, with the fake messenger and short
/// `sessions.limits`: the idle TTL (both ways), the run limit, the bounded queue and a hung pi.
@Suite struct ChatLimitsTests {
    static func limits(_ keys: String...) -> [String] {
        ["sessions:", "  limits:", "    sweepSeconds: 1"] + keys.map { "    " + $0 }
    }

    static func notices(_ chat: E2EChatHome, containing text: String) -> [String] {
        chat.posts("notice").compactMap { $0["text"]?.stringValue }.filter { $0.contains(text) }
    }

    /// The `new_session` commands pi was sent after the prompt holding `text`.
    static func newConversations(_ chat: E2EChatHome, after text: String) -> Int {
        let sent = E2EChatHome.jsonLines(chat.piLog)
        guard let prompt = sent.firstIndex(where: { $0["type"] == "prompt" && $0["message"]?.stringValue?.contains(text) == true }) else { return 0 }
        return sent[(prompt + 1)...].count { $0["type"] == "new_session" }
    }

    /// The chat's notices of a new conversation posted after its `n`th final answer.
    static func toldOfNewConversations(_ chat: E2EChatHome, afterFinal n: Int) -> Int {
        let posts = chat.posts()
        guard let final = posts.indices.filter({ posts[$0]["kind"] == "final" }).dropFirst(n - 1).first else { return 0 }
        return posts[(final + 1)...].count { $0["kind"] == "notice" && $0["text"]?.stringValue?.contains("a new conversation was started") == true }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anIdleSessionIsEndedAndTheChatTold() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            // Long enough for the session's start and the chat's /use on a loaded machine: the
            // idle clock runs from the start.
            config.extra = Self.limits("idleSeconds: 6")
            _ = try await chat.start(config)
            _ = try await chat.newBoundSession("idle")
            let told = try await waitFor("the idle notice", timeout: .seconds(30)) { Self.notices(chat, containing: "was idle for").first }
            #expect(told.contains("(sessions.limits.idleSeconds: 6): it was ended"), "\(told)")
            try await waitUntil("the session is gone", timeout: .seconds(30)) {
                try await chat.run(["sessions", "--json"]).json().arrayValue?.isEmpty == true
            }
            let after = try await chat.say("still there?")
            #expect(after["status"] == "unbound", "the chat watches nothing now: \(after)")
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anIdleSessionStartsANewConversationOnce() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.extra = Self.limits("idleSeconds: 3", "onIdle: newConversation")
            _ = try await chat.start(config)
            _ = try await chat.newBoundSession("fresh")
            _ = try await chat.say("remember the number 7")
            _ = try await chat.waitForFinal(1)
            // Counted after the run, in the order pi and the chat saw them: a loaded machine may
            // take the 3 s between the session's start and the prompt, and that idle spell has a
            // new conversation of its own, before the prompt (told to nobody if the chat was not
            // bound yet).
            try await waitUntil("a new conversation", timeout: .seconds(30)) { Self.newConversations(chat, after: "remember the number 7") >= 1 }
            try await waitUntil("the chat is told", timeout: .seconds(30)) { Self.toldOfNewConversations(chat, afterFinal: 1) >= 1 }
            // Nothing happens after: it is not started afresh again and again.
            try await Task.sleep(for: .seconds(5))
            #expect(Self.newConversations(chat, after: "remember the number 7") == 1)
            #expect(try await chat.run(["sessions", "--json"]).json().arrayValue?.first?["name"] == "fresh")
        }
    }

    /// A run past `maxRunSeconds` is aborted and the chat told; while it runs, a second queued
    /// prompt is one more than `queueMax: 1` and is refused with the reason.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aLongRunIsStoppedAndAFullQueueRefuses() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.extra = Self.limits("maxRunSeconds: 8", "queueMax: 1")
            _ = try await chat.start(config)
            _ = try await chat.newBoundSession("long")
            _ = try await chat.say("!scenario slow 300 100")
            try await waitUntil("the run is on", timeout: .seconds(30)) {
                try await chat.run(["sessions", "--json"]).json().arrayValue?.first?["state"] == "busy"
            }
            let queued = try await chat.say("one")
            #expect(queued["status"] == "queued", "\(queued)")
            let refused = try await chat.say("two")
            #expect(refused["status"] == "refused", "\(refused)")
            #expect(
                refused["reply"]?["text"]?.stringValue?.contains("already has 1 prompt(s) waiting (sessions.limits.queueMax)") == true, "\(refused)")
            #expect(!chat.piCommands("prompt").contains { $0["message"] == "two" }, "the refused prompt never reached pi")
            // The terminal's send is refused the same way.
            let sent = try await chat.home.cli.run(["send", "long", "three"])
            #expect(sent.status != 0 && sent.stderr.contains("sessions.limits.queueMax"), "\(sent)")
            // The health figures: one prompt waiting in the queue.
            let waiting = try await chat.run(["status", "--json"]).json()["figures"]
            #expect(waiting?["promptQueue"]?.intValue == 1, "\(String(describing: waiting))")
            #expect((waiting?["promptQueueOldestSeconds"]?.doubleValue ?? -1) >= 0)

            let stopped = try await waitFor("the run limit notice", timeout: .seconds(40)) {
                Self.notices(chat, containing: "past sessions.limits.maxRunSeconds").first
            }
            #expect(stopped.contains("it was stopped"), "\(stopped)")
            #expect(chat.piCommands("abort").count == 1)
            _ = try await chat.waitForFinal(1)
            // The stopped run counts as a timeout. An abort leaves pi's queue as it was (pi-rpc
            // spec: queued messages are not cleared by abort), so the prompt still waits.
            let figures = try await chat.run(["status", "--json"]).json()["figures"]
            #expect(figures?["timeouts"]?["run"]?.intValue == 1, "\(String(describing: figures))")
            #expect(figures?["promptQueue"]?.intValue == 1, "\(String(describing: figures))")
            #expect(try await chat.run(["status"]).stdout.contains("timeouts 1 (run 1)"))
        }
    }

    /// `onMessage: newConversation` (seed 003's TTL 0): each chat message to an idle session
    /// starts a new conversation in pi first (`new_session`, then the prompt); the terminal's
    /// `send` does not.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func everyChatMessageCanStartAFreshConversation() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.extra = Self.limits("onMessage: newConversation")
            _ = try await chat.start(config)
            _ = try await chat.newBoundSession("fresh")
            _ = try await chat.say("first")
            _ = try await chat.waitForFinal(1)
            _ = try await chat.say("second")
            _ = try await chat.waitForFinal(2)
            #expect(chat.piCommands("new_session").count == 2)
            let order = E2EChatHome.jsonLines(chat.piLog).compactMap { $0["type"]?.stringValue }.filter { ["new_session", "prompt"].contains($0) }
            #expect(order == ["new_session", "prompt", "new_session", "prompt"], "\(order)")
            let sent = try await chat.home.cli.run(["send", "fresh", "from the terminal"])
            #expect(sent.status == 0, "\(sent)")
            _ = try await chat.waitForFinal(3)
            #expect(chat.piCommands("new_session").count == 2, "the terminal's prompt keeps the conversation")
        }
    }

    /// `sessions.keepDays`: an ended session's pi file is listed in state/ended-sessions.json and
    /// removed by the real daemon once its days are past (the entry is backdated here while the
    /// daemon is stopped); the removal is logged.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func anEndedSessionsFileIsRemovedAfterKeepDays() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.extra = ["sessions:", "  keepDays: 2"]
            var daemon = try await chat.start(config)
            _ = try await chat.newBoundSession("short")
            _ = try await chat.say("hello")
            _ = try await chat.waitForFinal(1)
            let first = try #require(try await chat.run(["sessions", "--json"]).json().arrayValue?.first?["sessionFile"]?.stringValue)
            // A new conversation leaves the last one's file behind: listed too.
            _ = try await chat.say("/reset")
            let file = try await waitFor("a new session file", timeout: .seconds(30)) { () -> String? in
                let now = try await chat.run(["sessions", "--json"]).json().arrayValue?.first?["sessionFile"]?.stringValue
                return now == first ? nil : now
            }
            // pi writes a conversation's file with its first message.
            _ = try await chat.say("again")
            _ = try await chat.waitForFinal(2)
            #expect(try await chat.say("/end")["reply"]?["text"]?.stringValue?.hasPrefix("Ended") == true)
            let listPath = chat.home.path + "/state/ended-sessions.json"
            let listed = try JSONValue.parse(chat.home.read("state/ended-sessions.json"))
            #expect(listed["ended"]?.arrayValue?.compactMap { $0["sessionFile"]?.stringValue } == [first, file], "\(listed)")
            #expect(FileManager.default.fileExists(atPath: file) && FileManager.default.fileExists(atPath: first), "kept for their days")

            _ = await daemon.terminate()
            let backdated = chat.home.read("state/ended-sessions.json").replacingOccurrences(
                of: #""endedAt" : "[^"]*""#, with: "\"endedAt\" : \"2020-01-01T00:00:00Z\"", options: .regularExpression)
            try backdated.write(toFile: listPath, atomically: true, encoding: .utf8)
            daemon = try await chat.start(config)
            try await waitUntil("the files are removed", timeout: .seconds(30)) {
                !FileManager.default.fileExists(atPath: file) && !FileManager.default.fileExists(atPath: first)
            }
            #expect(chat.home.read("logs/pi-relayd.log").contains("removed \(file), the pi session file of short"))
        }
    }

    /// A pi that stops answering (SIGSTOP) makes the next command time out after
    /// `commandSeconds`: the chat is told, and the session's pi is restarted and answers again.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aHungPiIsReportedAndRestarted() async throws {
        try await E2EChatHome.with { chat in
            var config = chat.config()
            config.extra = ["sessions:", "  limits:", "    commandSeconds: 3"]
            _ = try await chat.start(config)
            _ = try await chat.newBoundSession("stuck")
            let pid = try #require(try await chat.run(["sessions", "--json"]).json().arrayValue?.first?["pid"]?.intValue)
            kill(Int32(pid), SIGSTOP)
            // The message fails (pi never took it); what counts is what follows.
            let request: JSONValue = [
                "method": "chat.message",
                "params": ["chat": E2EChatHome.chat(), "messageId": "hung-1", "text": "are you there?", "attachments": []],
            ]
            _ = try await chat.home.cli.run(["plugin", "call", "fake-messenger", "inject", request.serialized()], timeout: .seconds(60))
            let told = try await waitFor("the hung notice", timeout: .seconds(30)) {
                Self.notices(chat, containing: "did not answer prompt within 3 s").first
            }
            #expect(told.contains("restarting it"), "\(told)")
            try await waitUntil("a new pi answers", timeout: .seconds(60)) {
                let session = try await chat.run(["sessions", "--json"]).json().arrayValue?.first
                return session?["state"] == "idle" && session?["pid"]?.intValue.map { $0 != pid } == true
            }
            try await waitUntil("the chat hears it is back", timeout: .seconds(30)) {
                !Self.notices(chat, containing: "pi was restarted").isEmpty
            }
            _ = try await chat.say("and now?")
            let final = try await chat.waitForFinal(1)
            #expect(final["chunks"]?[0]?.stringValue?.contains("Echo: and now?") == true, "\(final)")
            let figures = try await chat.run(["status", "--json"]).json()["figures"]
            #expect(figures?["timeouts"]?["command"]?.intValue == 1, "\(String(describing: figures))")
        }
    }
}

extension ChatLimitsTests {
    /// The idle clock counts from the session's saved last activity: a session left idle while
    /// pi-relayd was stopped is ended at the first sweep after the restart, although its pi was
    /// started again (and asked for its state) moments before.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theIdleClockHoldsAcrossARestart() async throws {
        try await E2EChatHome.with { chat in
            let first = try await chat.start()
            _ = try await chat.newBoundSession("old")
            _ = try await chat.say("one last thing")
            _ = try await chat.waitForFinal(1)
            _ = try await chat.run(["stop"])
            #expect(await first.waitForExit() == .exited(0))
            try await Task.sleep(for: .seconds(10))

            var config = chat.config()
            config.extra = Self.limits("idleSeconds: 6")
            _ = try await chat.start(config)
            let told = try await waitFor("the idle notice", timeout: .seconds(30)) { Self.notices(chat, containing: "was idle for").first }
            #expect(told.contains("(sessions.limits.idleSeconds: 6): it was ended"), "\(told)")
            // Idle since before the stop, not since the restart's handshake.
            let idle = told.split(separator: "was idle for ").last?.split(separator: " ").first.flatMap { Int($0) } ?? 0
            #expect(idle >= 10, "\(told)")
            try await waitUntil("the session is gone", timeout: .seconds(30)) {
                try await chat.run(["sessions", "--json"]).json().arrayValue?.isEmpty == true
            }
        }
    }
}
