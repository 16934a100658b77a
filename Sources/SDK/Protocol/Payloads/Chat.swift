/// Where a chat message came from (docs/PROTOCOL.md §6, "chat"): a messenger, a channel or DM,
/// maybe a thread, and the user who wrote it.
public struct Chat: Sendable, Hashable {
    /// The messenger plugin's id. The supervisor overwrites it with the sender's id.
    public var messenger: String
    /// The channel (for a thread, its parent).
    public var channel: String
    /// The thread, when the message is in one.
    public var thread: String?
    /// The server, absent in DMs; for the messenger's own decisions.
    public var guild: String?
    /// The user's id on the messenger.
    public var user: String
    /// The user's display name, for notices such as `alice (discord) answered`.
    public var userName: String?
    /// A one-to-one conversation with the bot.
    public var dm: Bool
    /// Whether the bot was mentioned; for the messenger's own decisions.
    public var mentioned: Bool

    /// A chat; `messenger` is the sending plugin's id.
    public init(
        messenger: String, channel: String, thread: String? = nil, guild: String? = nil, user: String, userName: String? = nil,
        dm: Bool, mentioned: Bool = false
    ) {
        self.messenger = messenger
        self.channel = channel
        self.thread = thread
        self.guild = guild
        self.user = user
        self.userName = userName
        self.dm = dm
        self.mentioned = mentioned
    }

    /// Where answers to this chat go: its thread when there is one.
    public var target: Target { Target(channel: channel, thread: thread) }
}

extension Chat: WirePayload {
    /// Reads a chat; `channel` and `user` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat")
        guard let channel = fields.optionalString("channel"), let user = fields.optionalString("user") else {
            throw .invalidParams("chat needs channel and user")
        }
        self.init(
            messenger: fields.optionalString("messenger") ?? "", channel: channel, thread: fields.optionalString("thread"),
            guild: fields.optionalString("guild"), user: user, userName: fields.optionalString("userName"),
            dm: fields.bool("dm", default: false), mentioned: fields.bool("mentioned", default: false))
    }

    /// The chat; absent fields are left out.
    public var json: JSONValue {
        var object: JSONValue = [
            "messenger": .string(messenger), "channel": .string(channel), "user": .string(user), "dm": .bool(dm),
            "mentioned": .bool(mentioned),
        ]
        object["thread"] = thread.map { .string($0) }
        object["guild"] = guild.map { .string($0) }
        object["userName"] = userName.map { .string($0) }
        return object
    }
}

extension Chat: Codable {
    private enum CodingKeys: String, CodingKey {
        case messenger, channel, thread, guild, user, userName, dm, mentioned
    }

    /// Reads a chat a plugin saved; fields an older save lacks take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            messenger: try container.decodeIfPresent(String.self, forKey: .messenger) ?? "",
            channel: try container.decode(String.self, forKey: .channel), thread: try container.decodeIfPresent(String.self, forKey: .thread),
            guild: try container.decodeIfPresent(String.self, forKey: .guild), user: try container.decode(String.self, forKey: .user),
            userName: try container.decodeIfPresent(String.self, forKey: .userName),
            dm: try container.decodeIfPresent(Bool.self, forKey: .dm) ?? false,
            mentioned: try container.decodeIfPresent(Bool.self, forKey: .mentioned) ?? false)
    }

    /// Saves the chat under its wire names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(messenger, forKey: .messenger)
        try container.encode(channel, forKey: .channel)
        try container.encodeIfPresent(thread, forKey: .thread)
        try container.encodeIfPresent(guild, forKey: .guild)
        try container.encode(user, forKey: .user)
        try container.encodeIfPresent(userName, forKey: .userName)
        try container.encode(dm, forKey: .dm)
        try container.encode(mentioned, forKey: .mentioned)
    }
}
