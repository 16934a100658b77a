import PiRelaySDK
import Testing

@testable import TelegramPlugin

/// Which Telegram messages reach the supervisor, decided without I/O (spec sections 6 and 13).
@Suite struct ListenPolicyTests {
    static let policy = ListenPolicy(botID: "7000000001", botUsername: "pirelay_test_bot", requireMention: true, groups: ["-100200"])

    static func message(
        chat: String = "42", type: String = "private", text: String, from: String = "42", bot: Bool = false,
        entities: [JSONValue] = [], replyTo: String? = nil, forum: Bool = false, topic: Int? = nil
    ) -> TelegramMessage {
        var json: JSONValue = [
            "message_id": 5, "chat": ["id": .string(chat), "type": .string(type), "is_forum": .bool(forum)],
            "from": ["id": .string(from), "is_bot": .bool(bot), "first_name": "Alice", "username": "alice"], "text": .string(text),
            "entities": .array(entities),
        ]
        if let replyTo { json["reply_to_message"] = ["message_id": 1, "from": ["id": .string(replyTo)]] }
        if let topic {
            json["message_thread_id"] = JSONValue(topic)
            json["is_topic_message"] = true
        }
        return TelegramMessage(json: json)!
    }

    static func command(_ length: Int) -> JSONValue { ["type": "bot_command", "offset": 0, "length": JSONValue(length)] }

    @Test func privateChatsAlwaysListen() {
        guard case .listen(let chat, let text) = Self.policy.decide(Self.message(text: "fix the tests")) else {
            Issue.record("a private message is a prompt")
            return
        }
        #expect(chat.dm && chat.channel == "42" && chat.user == "42" && text == "fix the tests")
    }

    @Test func groupsNeedACommandAMentionOrAReply() {
        let group = { (text: String, entities: [JSONValue], reply: String?) in
            Self.policy.decide(Self.message(chat: "-100300", type: "supergroup", text: text, entities: entities, replyTo: reply))
        }
        #expect(group("just chatting", [], nil) == .ignore("a group message not addressed to the bot"))
        guard case .listen(_, let mentioned) = group("@pirelay_test_bot run it", [["type": "mention", "offset": 0, "length": 17]], nil) else {
            Issue.record("a mention addresses the bot")
            return
        }
        #expect(mentioned == "run it")
        guard case .listen(_, let replied) = group("and again", [], "7000000001") else {
            Issue.record("a reply to the bot addresses it")
            return
        }
        #expect(replied == "and again")
        guard case .listen(_, let command) = group("/use@pirelay_test_bot api", [Self.command(21)], nil) else {
            Issue.record("a command for us")
            return
        }
        #expect(command == "/use api")
        #expect(group("/use@other_bot api", [Self.command(14)], nil) == .ignore("a command for another bot"))
    }

    /// An album's parts come as messages of their own with one `media_group_id`, the caption
    /// (and so the mention) on one of them (spec section 5): once one part was for the bot, the
    /// others are too; another album in the group is not.
    @Test func anAlbumsOtherPartsFollowThePartThatMentionedTheBot() {
        var policy = Self.policy
        func part(_ album: String, _ text: String, _ entities: [JSONValue] = []) -> TelegramMessage {
            var message = Self.message(chat: "-100300", type: "supergroup", text: text, entities: entities)
            message.albumID = album
            return message
        }
        guard case .listen = policy.decide(part("7", "@pirelay_test_bot compare", [["type": "mention", "offset": 0, "length": 17]])) else {
            Issue.record("the captioned part mentions the bot")
            return
        }
        #expect(policy.decide(part("7", "")) == .ignore("nothing to relay"), "a part with neither text nor file")
        #expect(policy.decide(part("7", "second")) == .ignore("a group message not addressed to the bot"), "not heard yet")
        policy.heard(album: "-100300:7")
        guard case .listen(let chat, "second") = policy.decide(part("7", "second")) else {
            Issue.record("a later part of a heard album is for the bot")
            return
        }
        #expect(chat.mentioned)
        #expect(policy.decide(part("8", "other")) == .ignore("a group message not addressed to the bot"))
    }

    @Test func withoutRequireMentionOnlyKnownGroupsListenToEverything() {
        var open = Self.policy
        open.requireMention = false
        if case .ignore = open.decide(Self.message(chat: "-100200", type: "supergroup", text: "hello")) {
            Issue.record("a configured group listens to every message")
        }
        #expect(open.decide(Self.message(chat: "-100999", type: "supergroup", text: "hello")) == .ignore("a group message not addressed to the bot"))
    }

    @Test func botsAreIgnoredAndTopicsBecomeThreads() {
        #expect(Self.policy.decide(Self.message(text: "hi", bot: true)) == .ignore("from a bot"))
        let inTopic = Self.message(chat: "-100200", type: "supergroup", text: "/status", entities: [Self.command(7)], forum: true, topic: 9)
        guard case .listen(let chat, _) = Self.policy.decide(inTopic) else {
            Issue.record("a command in a topic")
            return
        }
        #expect(chat.thread == "-100200/9" && !chat.dm)
        #expect(Place(chat.target) == Place(chatID: "-100200", topicID: 9))
    }

    /// Entity offsets are UTF-16 units: after an emoji, a character count would cut wrong.
    @Test func mentionsAreFoundByUTF16Offsets() {
        let text = "🚀🚀 @pirelay_test_bot go"
        let message = Self.message(chat: "-100300", type: "group", text: text, entities: [["type": "mention", "offset": 5, "length": 17]])
        #expect(message.mentions == ["@pirelay_test_bot"])
    }

    /// A shared room is heard whole, and a `/use` or `/new` meant for another machine's bot is
    /// read too (so this machine knows the room picked another); other commands for another bot
    /// are not.
    @Test func aSharedRoomIsHeardWhole() {
        var policy = Self.policy
        policy.sharedRooms = .listed(["-100900"])
        let room = { (text: String, entities: [JSONValue]) in
            policy.decide(Self.message(chat: "-100900", type: "supergroup", text: text, entities: entities))
        }
        guard case .listen(_, let prompt) = room("fix the tests", []) else { Issue.record("a plain message is heard"); return }
        #expect(prompt == "fix the tests")
        guard case .listen(_, let use) = room("/use@desktop_bot desktop web", [Self.command(16)]) else {
            Issue.record("/use for another bot is read in a shared room")
            return
        }
        #expect(use == "/use desktop web")
        #expect(room("/stop@desktop_bot", [Self.command(17)]) == .ignore("a command for another bot"))
        #expect(
            Self.policy.decide(Self.message(chat: "-100900", type: "supergroup", text: "fix the tests"))
                == .ignore("a group message not addressed to the bot"), "not listed: as before")
    }
}
