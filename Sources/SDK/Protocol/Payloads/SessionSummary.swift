/// One session as the welcome, `sessions` on the control socket and `chat.command sessions` list
/// it (docs/PROTOCOL.md §7).
public struct SessionSummary: Sendable, Equatable {
    /// The session's id.
    public var id: String
    /// Its name, unique among sessions.
    public var name: String
    /// The folder pi works in.
    public var cwd: String
    /// `starting`, `resuming`, `idle`, `busy`, `waiting-for-answer` (a question is open), `exited`,
    /// or, for a terminal session whose pi is not attached, `offline`.
    public var state: String
    /// When it last did something, ISO 8601.
    public var lastActivity: String?
    /// How many questions are open, approval gates included.
    public var questions: Int?
    /// How many of the open questions are approval gates waiting for a decision.
    public var approvals: Int?
    /// Why pi exited, when `state` is `exited`.
    public var exitReason: String?
    /// pi's session file, which `/new` resumes from.
    public var sessionFile: String?
    /// The model in use, `provider/id`.
    public var model: String?
    /// The thinking level in use.
    public var thinkingLevel: String?
    /// pi's process id while it runs.
    public var pid: Int?
    /// `spawned` (a pi the daemon started) or `terminal` (an interactive pi attached through
    /// the pi-relayd extension). Absent means `spawned`.
    public var kind: String?
    /// The session's mark (an emoji) in chats that watch several sessions, kept for its lifetime.
    public var marker: String?
    /// The machine whose pi-relayd runs the session (`machine:` in its config.yaml).
    public var machine: String?

    /// A summary with the required fields; the rest may be set afterwards.
    public init(id: String, name: String, cwd: String, state: String) {
        self.id = id
        self.name = name
        self.cwd = cwd
        self.state = state
    }
}

extension SessionSummary: WirePayload {
    /// Reads a summary; `id` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "session")
        let id = try fields.string("id")
        self.init(
            id: id, name: fields.optionalString("name") ?? id, cwd: fields.optionalString("cwd") ?? "", state: fields.optionalString("state") ?? "")
        lastActivity = fields.optionalString("lastActivity")
        questions = fields.optionalInt("questions")
        approvals = fields.optionalInt("approvals")
        exitReason = fields.optionalString("exitReason")
        sessionFile = fields.optionalString("sessionFile")
        model = fields.optionalString("model")
        thinkingLevel = fields.optionalString("thinkingLevel")
        pid = fields.optionalInt("pid")
        kind = fields.optionalString("kind")
        marker = fields.optionalString("marker")
        machine = fields.optionalString("machine")
    }

    /// The summary; absent fields are left out.
    public var json: JSONValue {
        var object: JSONValue = ["id": .string(id), "name": .string(name), "cwd": .string(cwd), "state": .string(state)]
        object["lastActivity"] = lastActivity.map { .string($0) }
        object["questions"] = questions.map { JSONValue($0) }
        object["approvals"] = approvals.map { JSONValue($0) }
        object["exitReason"] = exitReason.map { .string($0) }
        object["sessionFile"] = sessionFile.map { .string($0) }
        object["model"] = model.map { .string($0) }
        object["thinkingLevel"] = thinkingLevel.map { .string($0) }
        object["pid"] = pid.map { JSONValue($0) }
        object["kind"] = kind.map { .string($0) }
        object["marker"] = marker.map { .string($0) }
        object["machine"] = machine.map { .string($0) }
        return object
    }
}
