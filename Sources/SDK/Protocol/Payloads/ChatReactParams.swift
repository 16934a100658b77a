/// `chat.react`, an acknowledged delivery (supervisor → messenger): put a reaction on a user's
/// message or take it off, e.g. the `⏳` of a queued prompt once pi takes it. A messenger
/// without reactions acks it and does nothing.
public struct ChatReactParams: Sendable, Equatable {
    /// Where the message is.
    public var target: Target
    /// The messenger's id of the user's message (`chat.message`'s `messageId`).
    public var messageID: String
    /// The emoji, e.g. `⏳`.
    public var emoji: String
    /// Take the bot's reaction off instead of adding it.
    public var remove: Bool

    /// A reaction change.
    public init(target: Target, messageID: String, emoji: String, remove: Bool) {
        self.target = target
        self.messageID = messageID
        self.emoji = emoji
        self.remove = remove
    }
}

extension ChatReactParams: WirePayload {
    /// Reads it; `target`, `messageId` and `emoji` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.react")
        self.init(
            target: try Target(json: json["target"] ?? .null), messageID: try fields.string("messageId"), emoji: try fields.string("emoji"),
            remove: fields.bool("remove", default: false))
    }

    /// The params.
    public var json: JSONValue {
        ["target": target.json, "messageId": .string(messageID), "emoji": .string(emoji), "remove": .bool(remove)]
    }
}
