/// `chat.answer`: the user answered a question through the messenger's controls. The answer is a `Reply`.
public struct ChatAnswerParams: Sendable, Equatable {
    /// Where the answer came from.
    public var chat: Chat
    /// The question's session.
    public var sessionID: String
    /// The question.
    public var questionID: String
    /// An option's text (or 1-based number) for `select`; the text for `input` and `editor`.
    public var value: String?
    /// Yes or no, for `confirm`.
    public var confirmed: Bool?
    /// The user cancelled the question.
    public var cancelled: Bool

    /// An answer.
    public init(chat: Chat, sessionID: String, questionID: String, value: String? = nil, confirmed: Bool? = nil, cancelled: Bool = false) {
        self.chat = chat
        self.sessionID = sessionID
        self.questionID = questionID
        self.value = value
        self.confirmed = confirmed
        self.cancelled = cancelled
    }
}

extension ChatAnswerParams: WirePayload {
    /// Reads an answer; `chat`, `sessionId` and `questionId` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.answer")
        self.init(
            chat: try Chat(json: json["chat"] ?? .null), sessionID: try fields.string("sessionId"), questionID: try fields.string("questionId"),
            value: fields.optionalString("value"), confirmed: fields.optionalBool("confirmed"), cancelled: fields.bool("cancelled", default: false))
    }

    /// The params; absent answers are left out.
    public var json: JSONValue {
        var object: JSONValue = ["chat": chat.json, "sessionId": .string(sessionID), "questionId": .string(questionID)]
        object["value"] = value.map { .string($0) }
        object["confirmed"] = confirmed.map { .bool($0) }
        if cancelled { object["cancelled"] = true }
        return object
    }
}
