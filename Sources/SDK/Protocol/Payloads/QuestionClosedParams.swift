/// `chat.question.closed`, an acknowledged delivery (supervisor → messenger): a question was
/// answered, cancelled, expired, or went with its pi. Edit its message to show `text`.
public struct QuestionClosedParams: Sendable, Equatable {
    /// Where the question was posted.
    public var target: Target
    /// Its session.
    public var sessionID: String
    /// The question.
    public var questionID: String
    /// What became of it, e.g. `alice (discord) answered: yes`.
    public var text: String

    /// A closed question.
    public init(target: Target, sessionID: String, questionID: String, text: String) {
        self.target = target
        self.sessionID = sessionID
        self.questionID = questionID
        self.text = text
    }
}

extension QuestionClosedParams: WirePayload {
    /// Reads it; `sessionId` and `questionId` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.question.closed")
        let sessionID = try fields.string("sessionId")
        let questionID = try fields.string("questionId")
        self.init(
            target: (try? Target(json: json["target"] ?? .null)) ?? Target(channel: ""), sessionID: sessionID, questionID: questionID,
            text: fields.optionalString("text") ?? "Closed.")
    }

    /// The params.
    public var json: JSONValue {
        ["target": target.json, "sessionId": .string(sessionID), "questionId": .string(questionID), "text": .string(text)]
    }
}
