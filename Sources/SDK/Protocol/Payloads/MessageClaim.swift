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

    public init(messenger: String, messageID: String, first: Bool? = nil) {
        self.messenger = messenger
        self.messageID = messageID
        self.first = first
    }
}

extension MessageClaim: WirePayload {
    /// Reads it; `messenger` and `messageId` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "claim")
        self.init(messenger: try fields.string("messenger"), messageID: try fields.string("messageId"), first: fields.optionalBool("first"))
    }

    /// `{messenger, messageId, first?}`.
    public var json: JSONValue {
        var object: JSONValue = ["messenger": .string(messenger), "messageId": .string(messageID)]
        if let first { object["first"] = .bool(first) }
        return object
    }
}
