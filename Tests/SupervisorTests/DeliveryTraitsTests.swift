import PiRelaySDK
import Testing

@testable import Supervisor

/// What shapes a chat's messages beside the run itself: each messenger's traits from its hello,
/// and who is mentioned when a long run ends (on a fake clock).
@Suite struct DeliveryTraitsTests {
    @Test func aMessengersHelloSetsItsLimitsMarkupAndPaceWithinBounds() {
        var traits = MessengerTraits()
        #expect(traits.messageLength("discord") == 2000 && traits.uploadBytes("discord") == 10 << 20)
        #expect(traits.dialect("discord") == .markdown && traits.liveInterval("discord") == .milliseconds(800))
        traits.take(
            Hello(
                name: "slack", version: "1", roles: ["messenger"],
                limits: ["maxMessageLength": 3000, "maxUploadBytes": 1 << 20, "liveIntervalMs": 5], dialect: .slackMrkdwn),
            of: "slack")
        #expect(traits.messageLength("slack") == 3000 && traits.uploadBytes("slack") == 1 << 20)
        #expect(traits.dialect("slack") == .slackMrkdwn)
        #expect(traits.liveInterval("slack") == .milliseconds(100), "a pace faster than 100 ms is raised to it")
        traits.take(Hello(name: "slack", version: "2", roles: ["messenger"], limits: ["liveIntervalMs": 60_000]), of: "slack")
        #expect(traits.liveInterval("slack") == .seconds(10), "and one slower than 10 s lowered")
        #expect(traits.messageLength("slack") == 2000 && traits.dialect("slack") == .markdown, "a restarted plugin's hello replaces the last")
        traits.take(Hello(name: "m/x", version: "", roles: ["messenger"], limits: ["maxMessageLength": -1, "maxUploadBytes": 0]), of: "m/x")
        #expect(traits.messageLength("m/x") == 2000 && traits.uploadBytes("m/x") == 10 << 20, "nothing sendable: the defaults")
        traits.take(Hello(name: "m/x", version: "", roles: ["messenger"], limits: ["maxMessageLength": 12]), of: "m/x")
        #expect(traits.messageLength("m/x") == 2000, "a length no label and line fit in: the default")
        traits.take(Hello(name: "m/x", version: "", roles: ["messenger"], limits: ["maxMessageLength": 100]), of: "m/x")
        #expect(traits.messageLength("m/x") == 100)
    }

    /// A messenger's `liveIntervalMs` in config.yaml is a floor: the plugin's own pace (its send
    /// budget) may be longer, and wins then.
    @Test func aConfiguredLivePaceIsAFloorThePluginsOwnMayRaise() {
        var traits = MessengerTraits()
        let telegram = Hello(name: "telegram", version: "1", roles: ["messenger"], limits: ["liveIntervalMs": 1000])
        traits.take(telegram, of: "telegram", liveIntervalMs: 3000)
        #expect(traits.liveInterval("telegram") == .seconds(3), "slower than the plugin asks: the config's")
        traits.take(telegram, of: "telegram", liveIntervalMs: 200)
        #expect(traits.liveInterval("telegram") == .seconds(1), "faster than the plugin can: the plugin's")
        traits.take(Hello(name: "x", version: "1", roles: ["messenger"]), of: "x", liveIntervalMs: 2500)
        #expect(traits.liveInterval("x") == .milliseconds(2500), "a plugin that names no pace takes the config's")
    }

    @Test func onlyALongRunMentionsWhoPromptedItAndOnlyInTheirChat() {
        let t0 = ContinuousClock.now
        var pings = LongRunPings(longerThan: .seconds(120))
        pings.prompted("s1", by: Requester(chatKey: "telegram:7", user: "ana"))
        #expect(pings.requester(of: "s1", in: "telegram:7") == "ana")
        #expect(pings.requester(of: "s1", in: "discord:9") == nil, "another chat is not pinged")
        #expect(pings.requester(of: "s2", in: "telegram:7") == nil)

        pings.runStarted("s1-1", at: t0)
        let short = pings.runEnded("s1-1", at: t0 + .seconds(60))
        #expect(!short)
        pings.runStarted("s1-2", at: t0)
        let long = pings.runEnded("s1-2", at: t0 + .seconds(121))
        let again = pings.runEnded("s1-2", at: t0 + .seconds(500))
        let unknown = pings.runEnded("s1-9", at: t0 + .seconds(500))
        #expect(long)
        #expect(!again, "a run ends once")
        #expect(!unknown, "a run from before this daemon is not timed")
    }
}
