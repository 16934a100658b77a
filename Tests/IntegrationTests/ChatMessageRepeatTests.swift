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
}
