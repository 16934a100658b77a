import Foundation
import PiRelaySDK
import Testing

/// Issue 6 point 11, where the bot listens (point 3): a channel listed in `discord.channels`
/// talks to its own session, in guild channels only when the bot is mentioned unless
/// `requireMention` is off, and channels nobody configured are ignored.
@Suite struct StackChannelTests {
    /// `general` is configured with a project: its session is started in that cwd, a message
    /// that mentions the bot is its prompt and the answer comes back to `general`. A message
    /// without the mention, one in the unconfigured `ops` and one from another bot reach nobody
    /// and get no answer (checked once a later message, sent after them, has been answered).
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aConfiguredChannelTalksToItsSessionWhenMentioned() async throws {
        try await StackHome.with { stack in
            let project = stack.workspace + "/api"
            try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
            var config = StackConfig()
            config.channels = [(id: StackHome.general, cwd: project, name: "api")]
            try await stack.start(config)
            try await stack.waitForState("api", "idle")
            #expect(try await stack.session(named: "api")?["cwd"]?.stringValue == project)

            try await stack.say("nobody called you", in: StackHome.general, mention: false)
            try await stack.say("wrong room", in: StackHome.ops)
            let fromABot = try await stack.fake.post(
                "/messages",
                [
                    "channel_id": .string(StackHome.general), "mention_bot": true, "content": "a bot talking",
                    "author": ["id": "1500000000000000001", "username": "otherbot", "bot": true],
                ])
            #expect(fromABot["delivered_to"]?.arrayValue?.isEmpty == false, "\(fromABot)")
            try await stack.say("hello api", in: StackHome.general)
            try await stack.waitForBotMessage(in: StackHome.general, containing: "Echo: hello api")
            #expect(try await stack.json("last", "api")["text"] == "Echo: hello api")
            #expect(stack.piPrompts(containing: "nobody called you").isEmpty, "a guild message without a mention is no prompt")
            #expect(stack.piPrompts(containing: "wrong room").isEmpty, "an unconfigured channel is ignored")
            #expect(stack.piPrompts(containing: "a bot talking").isEmpty, "other bots are ignored")
            #expect(try await stack.botMessages(StackHome.ops).isEmpty, "the bot said nothing in ops")
            let said = try await stack.botMessages(StackHome.general).compactMap { $0["content"]?.stringValue }
            #expect(!said.contains { $0.contains("nobody called you") || $0.contains("Not authorized") }, "\(said)")
        }
    }

    /// With `requireMention: no` (YAML 1.1's spelling, which once reached the plugin as the string
    /// "no" and left it not configured), every message in the configured channel is a prompt; a
    /// channel that is not configured is still ignored, mention or not.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func withoutRequireMentionEveryMessageInTheChannelIsAPrompt() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.channels = [(id: StackHome.general, cwd: stack.workspace, name: "open")]
            config.requireMention = "no"
            try await stack.start(config)
            try await stack.waitForState("open", "idle")

            try await stack.say("still not configured", in: StackHome.ops)
            try await stack.say("no mention needed", in: StackHome.general, mention: false)
            try await stack.waitForBotMessage(in: StackHome.general, containing: "Echo: no mention needed")
            #expect(stack.piPrompts(containing: "no mention needed").count == 1)
            #expect(stack.piPrompts(containing: "still not configured").isEmpty)
            #expect(try await stack.botMessages(StackHome.ops).isEmpty)
        }
    }

    /// A configured name binds the session of exactly that name, or starts one: an existing
    /// `apiary` does not stand in for `api`, nor a session whose id begins with the name. Both
    /// channels get new sessions of their own, and their prompts reach those, not the older one.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aConfiguredNameBindsOnlyTheSessionOfExactlyThatName() async throws {
        try await StackHome.with { stack in
            let first = try await stack.start()
            let apiary = try await stack.newSession("apiary")
            let idPrefix = String(apiary.prefix(4))
            let (exit, forced) = await first.terminate()
            #expect(exit == .exited(0) && !forced)

            var config = StackConfig()
            config.channels = [
                (id: StackHome.general, cwd: stack.workspace, name: "api"),
                (id: StackHome.ops, cwd: stack.workspace, name: idPrefix),
            ]
            try await stack.start(config, freshCommands: false)
            try await stack.waitForState("api", "idle")
            try await stack.waitForState(idPrefix, "idle")
            let ids = try await stack.sessions().compactMap { $0["id"]?.stringValue }
            #expect(ids.count == 3, "apiary and one new session per channel: \(ids)")

            try await stack.say("for api", in: StackHome.general)
            try await stack.say("for the prefix", in: StackHome.ops)
            try await stack.waitForBotMessage(in: StackHome.general, containing: "Echo: for api")
            try await stack.waitForBotMessage(in: StackHome.ops, containing: "Echo: for the prefix")
            #expect(try await stack.json("last", "api")["text"] == "Echo: for api")
            #expect(try await stack.json("last", idPrefix)["text"] == "Echo: for the prefix")
            #expect(try await stack.json("last", apiary)["text"]?.stringValue == nil, "apiary was prompted by neither channel")
        }
    }
}
