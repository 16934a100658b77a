import PiRelaySDK

/// Where a message or command came from, in the protocol's `chat` shape.
struct ChatRef: Codable, Sendable, Equatable {
    /// The channel (for a thread: its parent).
    var channel: String
    var thread: String?
    var guild: String?
    var user: String
    var userName: String
    var dm: Bool
    var mentioned: Bool

    /// Where answers go: the thread when there is one.
    var postChannel: String { thread ?? channel }

    var json: JSONValue {
        var o: [String: JSONValue] = [
            "messenger": "discord", "channel": .string(channel), "user": .string(user),
            "userName": .string(userName), "dm": .bool(dm), "mentioned": .bool(mentioned),
        ]
        if let thread { o["thread"] = .string(thread) }
        if let guild { o["guild"] = .string(guild) }
        return .object(o)
    }

    /// Where the interaction happened; `parent` is known for interactions in threads.
    init(_ i: Interaction) {
        if let parent = i.parentChannelID {
            channel = parent
            thread = i.channelID
        } else {
            channel = i.channelID
            thread = nil
        }
        guild = i.guildID
        user = i.userID
        userName = i.userName
        dm = i.isDM
        mentioned = false
    }

    init(channel: String, thread: String?, guild: String?, user: String, userName: String, dm: Bool, mentioned: Bool) {
        self.channel = channel
        self.thread = thread
        self.guild = guild
        self.user = user
        self.userName = userName
        self.dm = dm
        self.mentioned = mentioned
    }
}
