/// `chat.post`, an acknowledged delivery (supervisor → messenger): something to post in a chat.
public struct ChatPostParams: Sendable, Equatable {
    /// What the post is.
    public enum Kind: String, Sendable, Equatable {
        /// A run's answer, in `chunks`, maybe with `files`; it replaces the run's live message.
        case final
        /// A notice (errors, retries, compaction…), in `text`.
        case notice
        /// A prompt from another origin, in `text`; shown as `▶ USER: …`.
        case echo
        /// A workspace file, in `files`, with a caption in `text`.
        case file
        /// A reply to a local command, in `text`, maybe with `actions`.
        case reply
        /// A question from the agent, in `question`.
        case question
    }

    /// Where to post.
    public var target: Target
    /// What it is.
    public var kind: Kind
    /// The session it belongs to.
    public var sessionID: String?
    /// The run, for `final`.
    public var runID: String?
    /// The text, for every kind but `final`.
    public var text: String?
    /// The messages of a `final`, each within the messenger's `maxMessageLength`.
    public var chunks: [String]?
    /// Files to upload.
    public var files: [PostedFile]
    /// Buttons, for `reply`.
    public var actions: [[Reply.Action]]
    /// The question, for `question`.
    public var question: QuestionPost?
    /// A user to mention (the one whose DM or prompt it is).
    public var mentionUser: String?

    /// A post.
    public init(
        target: Target, kind: Kind, sessionID: String? = nil, runID: String? = nil, text: String? = nil, chunks: [String]? = nil,
        files: [PostedFile] = [], actions: [[Reply.Action]] = [], question: QuestionPost? = nil, mentionUser: String? = nil
    ) {
        self.target = target
        self.kind = kind
        self.sessionID = sessionID
        self.runID = runID
        self.text = text
        self.chunks = chunks
        self.files = files
        self.actions = actions
        self.question = question
        self.mentionUser = mentionUser
    }

    /// The post's text and buttons as a reply, for messengers that show both alike.
    public var reply: Reply { Reply(text: text ?? "", actions: actions) }
}

extension ChatPostParams: WirePayload {
    /// Reads a post; `target` is required and a missing or unknown `kind` reads as `notice`.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.post")
        let reply = try Reply(json: json)
        self.init(
            target: try Target(json: json["target"] ?? .null), kind: fields.optionalString("kind").flatMap(Kind.init(rawValue:)) ?? .notice,
            sessionID: fields.optionalString("sessionId"), runID: fields.optionalString("runId"), text: fields.optionalString("text"),
            chunks: json["chunks"]?.arrayValue.map { $0.compactMap(\.stringValue) }, files: fields.list("files", of: PostedFile.self),
            actions: reply.actions, question: try fields.optional("question", as: QuestionPost.self),
            mentionUser: fields.optionalString("mentionUser"))
    }

    /// The params; absent fields are left out.
    public var json: JSONValue {
        var object: JSONValue = ["target": target.json, "kind": .string(kind.rawValue)]
        object["sessionId"] = sessionID.map { .string($0) }
        object["runId"] = runID.map { .string($0) }
        object["text"] = text.map { .string($0) }
        object["chunks"] = chunks?.json
        if !files.isEmpty { object["files"] = files.json }
        if !actions.isEmpty { object["actions"] = Reply(actions: actions).json["actions"] }
        object["question"] = question?.json
        object["mentionUser"] = mentionUser.map { .string($0) }
        return object
    }
}
