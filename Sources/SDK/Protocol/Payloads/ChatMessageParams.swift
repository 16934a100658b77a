/// `chat.message`: a user wrote in a chat (messenger → supervisor).
public struct ChatMessageParams: Sendable, Equatable {
    /// Where it was written.
    public var chat: Chat
    /// The messenger's id for the message; the supervisor acts on each once.
    public var messageID: String?
    /// What the user wrote.
    public var text: String
    /// Files sent with it.
    public var attachments: [AttachmentRef]

    /// A chat message.
    public init(chat: Chat, messageID: String?, text: String, attachments: [AttachmentRef] = []) {
        self.chat = chat
        self.messageID = messageID
        self.text = text
        self.attachments = attachments
    }
}

extension ChatMessageParams: WirePayload {
    /// Reads a message; `chat` is required, `text` may be empty.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.message")
        self.init(
            chat: try Chat(json: json["chat"] ?? .null), messageID: fields.optionalString("messageId"), text: fields.optionalString("text") ?? "",
            attachments: fields.list("attachments", of: AttachmentRef.self))
    }

    /// The params.
    public var json: JSONValue {
        var object: JSONValue = ["chat": chat.json, "text": .string(text), "attachments": attachments.json]
        object["messageId"] = messageID.map { .string($0) }
        return object
    }
}
