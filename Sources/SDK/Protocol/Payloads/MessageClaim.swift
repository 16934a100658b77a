/// `federation.claim` (supervisor → federation): an inbound message a shared messenger took,
/// claimed before it is acted on. Two machines may both take one across a change of the lease's
/// holder (the old one frozen, then thawed); the database lets the first claim win, so each
/// message is acted on once.
public struct MessageClaim: Sendable, Equatable {
    /// The messenger plugin.
    public var messenger: String
    /// The message's id at the service (Telegram's chat and message id).
    public var messageID: String
    /// Set in the answer: whether this claim was the first.
    public var first: Bool?
    /// Gives an earlier claim back: acting on the message failed, and the messenger's retry
    /// (here or on another machine) must be acted on.
    public var release: Bool

    public init(messenger: String, messageID: String, first: Bool? = nil, release: Bool = false) {
        self.messenger = messenger
        self.messageID = messageID
        self.first = first
        self.release = release
    }
}

extension MessageClaim: WirePayload {
    /// Reads it; `messenger` and `messageId` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "claim")
        self.init(
            messenger: try fields.string("messenger"), messageID: try fields.string("messageId"), first: fields.optionalBool("first"),
            release: fields.bool("release", default: false))
    }

    /// `{messenger, messageId, first?, release?}`.
    public var json: JSONValue {
        var object: JSONValue = ["messenger": .string(messenger), "messageId": .string(messageID)]
        if let first { object["first"] = .bool(first) }
        if release { object["release"] = true }
        return object
    }
}
