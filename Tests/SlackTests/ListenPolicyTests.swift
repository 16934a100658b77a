import PiRelaySDK
import Testing

@testable import SlackPlugin

@Suite struct ListenPolicyTests {
    let policy = ListenPolicy(botUser: "UBOT", requireMention: true, channels: ["C1"], threads: ["C2/111.000"])

    func event(_ fields: JSONValue) -> SlackEvent {
        var json: JSONValue = ["type": "message", "channel": "D1", "channel_type": "im", "user": "UALICE", "text": "hi", "ts": "1.000001"]
        for (key, value) in fields.objectValue ?? [:] { json[key] = value }
        return SlackEvent(json: json)!
    }

    @Test func aDMIsAPromptWithSlackEscapesUndone() {
        #expect(
            policy.decide(event(["text": "a &lt; b &amp;&amp; c"]))
                == .listen(chat: Chat(messenger: "slack", channel: "D1", user: "UALICE", dm: true, mentioned: true), text: "a < b && c"))
    }

    @Test func theBotsOwnPostsEditsAndJoinsAreIgnored() {
        #expect(policy.decide(event(["bot_id": "B1"])) == .ignore("from a bot"))
        #expect(policy.decide(event(["user": "UBOT"])) == .ignore("the bot's own message"))
        #expect(policy.decide(event(["subtype": "message_changed"])) == .ignore("subtype message_changed"))
        #expect(policy.decide(event(["subtype": "channel_join"])) == .ignore("subtype channel_join"))
        #expect(policy.decide(event(["hidden": true])) == .ignore("a hidden message"))
        guard case .listen = policy.decide(event(["subtype": "file_share"])) else { Issue.record("file_share is a user writing"); return }
    }

    @Test func inAChannelOnlyAMentionOrTheSessionsThreadCounts() {
        let plain = event(["channel": "C1", "channel_type": "channel"])
        #expect(policy.decide(plain) == .ignore("a channel message not addressed to the bot"))
        let mentioned = event(["channel": "C1", "channel_type": "channel", "text": "<@UBOT> deploy"])
        #expect(
            policy.decide(mentioned)
                == .listen(chat: Chat(messenger: "slack", channel: "C1", user: "UALICE", dm: false, mentioned: true), text: "deploy"))
        let inThread = event(["channel": "C2", "channel_type": "channel", "thread_ts": "111.000", "text": "go on"])
        #expect(
            policy.decide(inThread)
                == .listen(
                    chat: Chat(messenger: "slack", channel: "C2", thread: "111.000", user: "UALICE", dm: false, mentioned: true), text: "go on"))
        var open = policy
        open.requireMention = false
        guard case .listen = open.decide(plain) else { Issue.record("a configured channel without requireMention listens"); return }
        #expect(open.decide(event(["channel": "C9", "channel_type": "channel"])) == .ignore("a channel message not addressed to the bot"))
    }

    /// A shared room is heard whole: every message there, mention or not.
    @Test func aSharedRoomIsHeardWhole() {
        var shared = policy
        shared.sharedRooms = .all
        let plain = event(["channel": "C9", "channel_type": "channel", "text": "deploy"])
        #expect(policy.decide(plain) == .ignore("a channel message not addressed to the bot"))
        #expect(
            shared.decide(plain)
                == .listen(chat: Chat(messenger: "slack", channel: "C9", user: "UALICE", dm: false, mentioned: false), text: "deploy"))
    }
}
