/// What a messenger shows the user in answer to a chat message or command (docs/PROTOCOL.md §6).
public struct Reply: Sendable, Equatable {
    /// A button. Its `id` comes back verbatim as `chat.command` `action`.
    public struct Action: Sendable, Equatable {
        /// At most 100 characters.
        public var id: String
        /// What the button says.
        public var label: String
        /// `primary`, `secondary`, `success` or `danger`.
        public var style: String

        /// A button.
        public init(id: String, label: String, style: String = "secondary") {
            self.id = id
            self.label = label
            self.style = style
        }
    }

    /// A request to open a thread for a new session, then `chat.bind` it.
    public struct OpenThread: Sendable, Equatable {
        /// The thread's name.
        public var name: String
        /// The session to bind the thread to.
        public var sessionID: String

        /// A thread request.
        public init(name: String, sessionID: String) {
            self.name = name
            self.sessionID = sessionID
        }
    }

    /// The text to show.
    public var text: String
    /// Shown to the asking user only, where the messenger can.
    public var ephemeral: Bool
    /// Rows of buttons.
    public var actions: [[Action]]
    /// Set when the messenger should open a thread.
    public var openThread: OpenThread?
    /// On `chat.answer` (and a question's button): the question took this answer or was
    /// cancelled by it, and `chat.question.closed` follows to show that on the question's message.
    /// A messenger that edits that message need not post this reply as well.
    public var questionClosed: Bool
    /// On `chat.pair`: the claim was accepted and the user is on the allowlist now, for a
    /// messenger that signs the user in itself (the web dashboard's cookie).
    public var paired: Bool

    /// A reply.
    public init(
        text: String = "", ephemeral: Bool = false, actions: [[Action]] = [], openThread: OpenThread? = nil, questionClosed: Bool = false,
        paired: Bool = false
    ) {
        self.text = text
        self.ephemeral = ephemeral
        self.actions = actions
        self.openThread = openThread
        self.questionClosed = questionClosed
        self.paired = paired
    }

    /// True when there is nothing to show.
    public var isEmpty: Bool { text.isEmpty && actions.isEmpty }
}

extension Reply: WirePayload {
    /// Reads a reply. Every field may be missing; buttons without an id and empty rows are dropped.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "reply")
        let actions = fields.array("actions").map { row in
            (row.arrayValue ?? []).compactMap { item -> Action? in
                guard let id = item["id"]?.stringValue, !id.isEmpty else { return nil }
                return Action(id: id, label: item["label"]?.stringValue ?? id, style: item["style"]?.stringValue ?? "secondary")
            }
        }.filter { !$0.isEmpty }
        var openThread: OpenThread?
        if let thread = json["openThread"], let session = thread["sessionId"]?.stringValue {
            openThread = OpenThread(name: thread["name"]?.stringValue ?? session, sessionID: session)
        }
        self.init(
            text: fields.optionalString("text") ?? "", ephemeral: fields.bool("ephemeral", default: false), actions: actions,
            openThread: openThread, questionClosed: fields.bool("questionClosed", default: false), paired: fields.bool("paired", default: false))
    }

    /// The reply; no actions, no thread, `questionClosed: false` and `paired: false` are left out.
    public var json: JSONValue {
        var object: JSONValue = ["text": .string(text), "ephemeral": .bool(ephemeral)]
        if !actions.isEmpty {
            object["actions"] = .array(
                actions.map { row in .array(row.map { ["id": .string($0.id), "label": .string($0.label), "style": .string($0.style)] }) })
        }
        if let openThread { object["openThread"] = ["name": .string(openThread.name), "sessionId": .string(openThread.sessionID)] }
        if questionClosed { object["questionClosed"] = true }
        if paired { object["paired"] = true }
        return object
    }
}
