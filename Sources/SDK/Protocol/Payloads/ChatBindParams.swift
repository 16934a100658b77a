/// `chat.bind`: bind a chat (usually a thread just opened for `/new`) to a session. The answer is a `Reply`.
public struct ChatBindParams: Sendable, Equatable {
    /// The chat to bind.
    public var chat: Chat
    /// The session it watches from now on.
    public var sessionID: String

    /// A bind request.
    public init(chat: Chat, sessionID: String) {
        self.chat = chat
        self.sessionID = sessionID
    }
}

extension ChatBindParams: WirePayload {
    /// Reads a bind request; both fields are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.bind")
        self.init(chat: try Chat(json: json["chat"] ?? .null), sessionID: try fields.string("sessionId"))
    }

    /// The params.
    public var json: JSONValue { ["chat": chat.json, "sessionId": .string(sessionID)] }
}
