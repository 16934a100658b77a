import Foundation
import PiRelaySDK
import Testing

/// A user who deletes the message a run is streaming into still gets the answer. The platform
/// answers the edit with "message to edit not found" (Telegram; in a private chat either side may
/// delete any message) or Unknown Message (Discord), and the words go in a new message (the Bot
/// API spec's error table: send a new one), where they were dropped as a permanent error, with
/// the final answer.
@Suite struct StackDeletedLiveTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func onTelegramTheAnswerArrivesInANewMessage() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) tg")
            try await stack.waitForBotMessage(in: chat, containing: "Started tg")

            try await stack.dm("!scenario slow 60 100")
            let live = try #require(try await stack.waitForBotMessage(in: chat, containing: "chunk 3").first)
            let id = try #require(live["message_id"]?.intValue)
            try await stack.fake.post("/delete_message", ["chat_id": .string(chat), "message_id": JSONValue(id)])

            let final = try #require(try await stack.waitForBotMessage(in: chat, containing: "chunk 60").first)
            #expect(final["message_id"]?.intValue != id, "\(final)")
            #expect(final["text"]?.stringValue?.contains("chunk 1 ") == true, "the whole answer: \(final)")
            let answers = try await stack.botMessages(chat).filter { $0["text"]?.stringValue?.contains("chunk 60") == true }
            #expect(answers.count == 1, "one answer: \(answers)")
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func onDiscordTheAnswerArrivesInANewMessage() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "gone"])
            try await stack.waitForState("gone", "idle")

            try await stack.dm("!scenario slow 60 100")
            let live = try #require(try await stack.waitForBotMessage(in: dm, containing: "chunk 3").first)
            let id = try #require(live["id"]?.stringValue)
            _ = try await stack.fake.post("/messages/\(id)/delete")

            let final = try #require(try await stack.waitForBotMessage(in: dm, containing: "chunk 60").first)
            #expect(final["id"]?.stringValue != id, "\(final)")
            #expect(final["content"]?.stringValue?.contains("chunk 1 ") == true, "the whole answer: \(final)")
        }
    }

    /// A thread someone closes while its run streams refuses edits (code 50083, discord-api.md
    /// §7), and a post there opens it again ("Post in thread"). The view and the answer go on in
    /// a new message, where the answer was dropped as a permanent error and lost.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func onDiscordAThreadClosedMidRunStillGetsTheAnswer() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "closed"], in: StackHome.general)
            let bound = try #require(
                try await stack.fake.wait("for=message&author=bot&contains=\(StackHome.escaped("This thread talks to closed"))")?[0])
            let thread = try #require(bound["channel_id"]?.stringValue)

            try await stack.say("!scenario slow 60 100", in: thread, mention: false)
            let live = try #require(try await stack.waitForBotMessage(in: thread, containing: "chunk 3").first)
            _ = try await stack.fake.post("/threads/\(thread)/archive")

            let final = try #require(try await stack.waitForBotMessage(in: thread, containing: "chunk 60").first)
            #expect(final["id"] != live["id"], "\(final)")
            #expect(final["content"]?.stringValue?.contains("chunk 1 ") == true, "the whole answer: \(final)")
            #expect(!stack.home.pluginLog("discord").contains("dropped"), "nothing dropped")
        }
    }

    /// A live message older than an hour (a long run) may be edited only about three times in
    /// 20 s in its channel (discord-api.md §6, code 30046: "post a new message instead"): the
    /// view goes on in a new message and the answer comes at once, where each edit waited out
    /// the limit again, and held up every other edit in the channel.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func onDiscordALiveMessageOlderThanAnHourIsPostedAgainNotEdited() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "long"])
            try await stack.waitForState("long", "idle")
            _ = try await stack.fake.post("/config", ["old_message_edit_limit": ["enabled": true, "limit": 1, "window_s": 20]])

            try await stack.dm("!scenario slow 60 100")
            let live = try #require(try await stack.waitForBotMessage(in: dm, containing: "chunk 3").first)
            let id = try #require(live["id"]?.stringValue)
            _ = try await stack.fake.post("/clock", ["advance_s": 3700])

            let final = try #require(try await stack.waitForBotMessage(in: dm, containing: "chunk 60", timeout: 20).first)
            #expect(final["id"]?.stringValue != id, "\(final)")
            #expect(final["content"]?.stringValue?.contains("chunk 1 ") == true, "the whole answer: \(final)")
        }
    }
}
