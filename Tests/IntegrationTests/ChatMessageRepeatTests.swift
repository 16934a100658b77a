import Foundation
import PiRelaySDK
import Testing

/// A messenger restarted while pi-relayd still handles one of its messages hands the message over
/// again (its journal); the repeat must not run it twice, and must not be answered with nothing
/// either: the first handling's answer went to the instance that is gone, so the repeat carries it.
@Suite struct ChatMessageRepeatTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aRepeatWhileTheFirstIsHandledGetsItsAnswer() async throws {
        try await E2EChatHome.with { chat in
            try await chat.start(environment: ["FAKE_PI_COMPACT_MS": "3000"])
            _ = try await chat.newBoundSession("repeat")
            _ = try await chat.say("hello")
            _ = try await chat.waitForFinal(1)
            let params: JSONValue = ["chat": E2EChatHome.chat(), "messageId": "m-compact", "text": "/compact", "attachments": []]
            async let first = chat.inject("chat.message", params)
            try await waitUntil("pi is compacting") { !chat.piCommands("compact").isEmpty }
            let repeated = try await chat.inject("chat.message", params)
            let answered = try await first
            #expect(answered["status"] == "command" && answered["reply"]?["text"] != nil, "\(answered)")
            #expect(repeated == answered, "the repeat carries the first handling's answer: \(repeated)")
            #expect(chat.piCommands("compact").count == 1, "compacted once")
        }
    }

    /// A daemon killed while a message waits to reach pi (here behind a compaction: it waits
    /// until pi is done) loses that prompt, rather than running it twice. The messenger hands the
    /// message over again after the restart: its repeat is not dropped without a word but tells
    /// the chat to send it again, once.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aMessageCutOffByAKilledDaemonIsToldOf() async throws {
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start(environment: ["FAKE_PI_COMPACT_MS": "20000"])
            _ = try await chat.newBoundSession("cut")
            let compact: JSONValue = ["chat": E2EChatHome.chat(), "messageId": "m-compact", "text": "/compact", "attachments": []]
            let waiting: JSONValue = ["chat": E2EChatHome.chat(), "messageId": "m-wait", "text": "after the compaction", "attachments": []]
            async let compacting = try? chat.inject("chat.message", compact, timeout: .seconds(60))
            try await waitUntil("pi is compacting") { !chat.piCommands("compact").isEmpty }
            async let held = try? chat.inject("chat.message", waiting, timeout: .seconds(60))
            try await waitUntil("the message is in hand") { chat.home.read("state/chat-messages.json").contains("m-wait") }
            await chat.home.crash(daemon)
            _ = await (compacting, held)

            _ = try await chat.start(environment: ["FAKE_PI_COMPACT_MS": "20000"])
            let told = try await chat.inject("chat.message", waiting)
            #expect(told["status"] == "refused", "\(told)")
            #expect(told["reply"]?["text"]?.stringValue?.contains("restarted while this message was waiting to reach pi") == true, "\(told)")
            let again = try await chat.inject("chat.message", waiting)
            #expect(again["status"] == "ignored", "told once: \(again)")
            #expect(!chat.piCommands("prompt").contains { $0["message"] == "after the compaction" }, "never run by either daemon")
        }
    }

    /// A messenger that crashed after the handling ended, before it showed the answer, hands
    /// the message over again: the repeat gets the same answer, where it got an `ignored` that
    /// showed nothing (a `/new` with no "Started", no thread opened).
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aRepeatAfterTheHandlingEndedGetsTheSameAnswer() async throws {
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start()
            _ = try await chat.newBoundSession("again")
            let params: JSONValue = ["chat": E2EChatHome.chat(), "messageId": "m-help", "text": "/help", "attachments": []]
            let first = try await chat.inject("chat.message", params)
            #expect(first["reply"]?["text"] != nil, "\(first)")
            let pid = try #require(try await daemon.plugins()["fake-messenger"]?.pid)
            kill(pid, SIGKILL)
            try await daemon.waitForPlugin("fake-messenger", "is running again") { $0.state == "running" && $0.pid != nil && $0.pid != pid }
            let repeated = try await chat.inject("chat.message", params)
            #expect(repeated == first, "\(repeated)")
        }
    }
}
