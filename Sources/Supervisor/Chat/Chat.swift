import PiRelaySDK

/// Where a chat message came from: a messenger, a channel (or DM), maybe a thread, and a user.
struct Chat: Sendable, Equatable {
    var messenger: String
    var channel: String
    var thread: String?
    var guild: String?
    var user: String
    var userName: String?
    var dm: Bool

    /// Chats are bound per messenger and per thread, else per channel.
    var key: String { "\(messenger):\(thread ?? channel)" }

    var target: JSONValue {
        var t: JSONValue = ["channel": .string(channel)]
        if let thread { t["thread"] = .string(thread) }
        return t
    }

    var who: String { "\(userName ?? user) (\(messenger))" }

    init(
        messenger: String, channel: String, thread: String? = nil, guild: String? = nil, user: String,
        userName: String? = nil, dm: Bool
    ) {
        self.messenger = messenger
        self.channel = channel
        self.thread = thread
        self.guild = guild
        self.user = user
        self.userName = userName
        self.dm = dm
    }

    init(json v: JSONValue?, plugin: String) throws {
        guard let v, let channel = v["channel"]?.stringValue, let user = v["user"]?.stringValue else {
            throw RemoteError.invalidParams("chat needs channel and user")
        }
        // A plugin speaks for itself: its name is the messenger, whatever it claims.
        self.init(
            messenger: plugin, channel: channel, thread: v["thread"]?.stringValue, guild: v["guild"]?.stringValue,
            user: user, userName: v["userName"]?.stringValue, dm: v["dm"]?.boolValue ?? false)
    }
}
