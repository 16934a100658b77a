/// A question from the agent, carried by `chat.post` kind `question`. The messenger builds its
/// own controls from `method` and `options`.
public struct QuestionPost: Sendable, Equatable {
    /// The question's id, for `chat.answer`.
    public var id: String
    /// The session that asks.
    public var sessionID: String
    /// `select`, `confirm`, `input` or `editor`; `terminal`: asked in a terminal pi by another
    /// extension, shown without answers (the message says to answer it in the terminal).
    public var method: String
    /// The question itself.
    public var title: String
    /// More text under the title.
    public var message: String?
    /// The choices of a `select`.
    public var options: [String]
    /// A hint for `input` and `editor`.
    public var placeholder: String?
    /// When it expires: epoch milliseconds (or seconds), or an ISO 8601 string.
    public var expiresAt: JSONValue?

    /// A question.
    public init(
        id: String, sessionID: String, method: String, title: String, message: String? = nil, options: [String] = [],
        placeholder: String? = nil, expiresAt: JSONValue? = nil
    ) {
        self.id = id
        self.sessionID = sessionID
        self.method = method
        self.title = title
        self.message = message
        self.options = options
        self.placeholder = placeholder
        self.expiresAt = expiresAt
    }
}

extension QuestionPost: WirePayload {
    /// Reads a question; `id` and `sessionId` are required, `method` defaults to `input`.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "question")
        self.init(
            id: try fields.string("id"), sessionID: try fields.string("sessionId"), method: fields.optionalString("method") ?? "input",
            title: fields.optionalString("title") ?? "Question", message: fields.optionalString("message"), options: fields.strings("options"),
            placeholder: fields.optionalString("placeholder"), expiresAt: json["expiresAt"].flatMap { $0.isNull ? nil : $0 })
    }

    /// The question; absent fields are left out.
    public var json: JSONValue {
        var object: JSONValue = [
            "id": .string(id), "sessionId": .string(sessionID), "method": .string(method), "title": .string(title), "options": options.json,
        ]
        object["message"] = message.map { .string($0) }
        object["placeholder"] = placeholder.map { .string($0) }
        object["expiresAt"] = expiresAt
        return object
    }
}
