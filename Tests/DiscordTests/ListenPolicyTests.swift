import DiscordPayloads
import PiRelaySDK
import Testing

@testable import DiscordPlugin

@Suite("Where the bot listens")
struct ListenPolicyTests {
    let policy = ListenPolicy(
        botUserID: "130", channels: ["120"],
        threads: [
            "555": ThreadInfo(id: "555", parentID: "120", guildID: "110"),
            "556": ThreadInfo(id: "556", parentID: "999", guildID: "110"),
            "557": ThreadInfo(id: "557", parentID: "999", guildID: "110"),
        ],
        boundThreads: ["557"], requireMention: true)

    func message(
        channel: String, guild: String? = "110", author: String = "140", content: String, bot: Bool = false,
        type: Int = 0, channelType: Int? = nil, mentions: [String] = []
    ) -> IncomingMessage {
        var m = IncomingMessage(["id": "1", "channel_id": .string(channel), "author": ["id": .string(author), "username": "alice"]])!
        m.guildID = guild
        m.content = content
        m.authorIsBot = bot
        m.type = type
        m.channelType = channelType
        m.mentionIDs = mentions
        return m
    }

    /// Several machines on one token: DMs are the one machine's that answers them, slash
    /// commands and buttons in a server the machine's whose channel (or its thread) it is.
    @Test func machinesSharingATokenSplitDMsAndChannels() {
        var other = policy
        other.answersDMs = false
        #expect(
            other.decide(message(channel: "5", guild: nil, content: "hi")) == .ignore("a DM, which another machine answers (discord.dms: ignore)"))
        #expect(!other.answersInteraction(in: "5", isDM: true) && policy.answersInteraction(in: "5", isDM: true))
        #expect(policy.answersInteraction(in: "120", isDM: false))
        #expect(policy.answersInteraction(in: "555", isDM: false), "a thread under a configured channel")
        #expect(policy.answersInteraction(in: "557", isDM: false), "a bound thread")
        #expect(!policy.answersInteraction(in: "556", isDM: false), "a thread under another machine's channel")
        #expect(!policy.answersInteraction(in: "121", isDM: false), "another machine's channel")
        var alone = policy
        alone.ownsEveryChannel = true
        #expect(alone.answersInteraction(in: "121", isDM: false), "one machine with no channels configured answers everywhere")
    }

    @Test func dmsAreAlwaysHeard() {
        #expect(
            policy.decide(message(channel: "5", guild: nil, content: "/stop"))
                == .listen(
                    chat: Chat(
                        messenger: "discord", channel: "5", thread: nil, guild: nil, user: "140", userName: "alice", dm: true, mentioned: false),
                    text: "/stop"))
    }

    @Test func configuredChannelsNeedAMentionWhichIsStripped() {
        #expect(policy.decide(message(channel: "120", content: "hello")) == .ignore("no mention"))
        guard case .listen(let chat, let text) = policy.decide(message(channel: "120", content: "<@130> fix it", mentions: ["130"])) else {
            Issue.record("a mention in a configured channel is heard")
            return
        }
        #expect(text == "fix it")
        #expect(chat.mentioned && chat.guild == "110" && chat.thread == nil)
        var relaxed = policy
        relaxed.requireMention = false
        guard case .listen = relaxed.decide(message(channel: "120", content: "hello")) else { Issue.record("no mention needed"); return }
    }

    @Test func otherChannelsAreIgnored() {
        #expect(policy.decide(message(channel: "121", content: "<@130> hi", mentions: ["130"])) == .ignore("channel not configured"))
    }

    @Test func threadsUnderConfiguredChannelsAndBoundThreads() {
        guard case .listen(let chat, _) = policy.decide(message(channel: "555", content: "<@130> go", channelType: 11, mentions: ["130"])) else {
            Issue.record("thread under a configured channel")
            return
        }
        #expect(chat.channel == "120" && chat.thread == "555")
        #expect(policy.decide(message(channel: "555", content: "go", channelType: 11)) == .ignore("no mention"))
        #expect(policy.decide(message(channel: "556", content: "<@130> go", mentions: ["130"])) == .ignore("thread outside the configured channels"))
        // A bound thread is a session's own place: no mention needed.
        guard case .listen(let bound, _) = policy.decide(message(channel: "557", content: "go on")) else { Issue.record("bound thread"); return }
        #expect(bound.channel == "999" && bound.thread == "557")
        #expect(
            policy.decide(message(channel: "999999", content: "<@130> x", channelType: 11, mentions: ["130"]))
                == .ignore("thread with an unknown parent"))
    }

    @Test func botsSelfAndSystemMessagesAreIgnored() {
        #expect(policy.decide(message(channel: "5", guild: nil, author: "130", content: "mine")) == .ignore("own message"))
        #expect(policy.decide(message(channel: "5", guild: nil, author: "150", content: "beep", bot: true)) == .ignore("from a bot or webhook"))
        #expect(policy.decide(message(channel: "5", guild: nil, content: "pinned", type: 6)) == .ignore("system message (type 6)"))
        #expect(policy.decide(message(channel: "5", guild: nil, content: "  ")) == .ignore("empty message"))
    }

    /// A shared room is heard whole, mention or not, and its slash commands are answered here.
    @Test func aSharedRoomIsHeardWhole() {
        var shared = policy
        shared.sharedRooms = .listed(["300"])
        #expect(policy.decide(message(channel: "300", content: "deploy")) == .ignore("channel not configured"))
        guard case .listen(let chat, let text) = shared.decide(message(channel: "300", content: "deploy")) else {
            Issue.record("a shared room's message is heard")
            return
        }
        #expect(chat.channel == "300" && !chat.mentioned && text == "deploy")
        #expect(shared.answersInteraction(in: "300", isDM: false) && !policy.answersInteraction(in: "300", isDM: false))
    }
}
