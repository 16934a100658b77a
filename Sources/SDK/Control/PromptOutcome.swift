/// What became of a prompt: the answer to `send`, `steer` and `follow-up` on the control socket,
/// and what a chat's message is told.
public struct PromptOutcome: Sendable, Equatable {
    /// Where the prompt went.
    public enum Status: String, Sendable, Equatable {
        /// A new turn.
        case prompted
        /// Waiting behind the running turn (a follow-up).
        case queued
        /// Steering the running turn.
        case steered
    }

    public var status: Status
    /// The session's id.
    public var session: String
    /// Why it went otherwise than asked (a steer queued as a follow-up behind a pending approval).
    public var note: String?
    /// What was left out or changed on the way (attachments, images the model cannot take).
    public var notes: [String]

    public init(status: Status, session: String, note: String? = nil, notes: [String] = []) {
        self.status = status
        self.session = session
        self.note = note
        self.notes = notes
    }
}

extension PromptOutcome: WirePayload {
    /// Reads an outcome; an unknown status is `invalid_params`.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "prompt outcome")
        let name = try fields.string("status")
        guard let status = Status(rawValue: name) else { throw .invalidParams("unknown prompt status \(name)") }
        self.init(
            status: status, session: fields.optionalString("session") ?? "", note: fields.optionalString("note"), notes: fields.strings("notes"))
    }

    /// `status` and `session`; `note` and `notes` when there are any.
    public var json: JSONValue {
        var object: JSONValue = ["status": .string(status.rawValue), "session": .string(session)]
        object["note"] = note.map { .string($0) }
        if !notes.isEmpty { object["notes"] = .array(notes.map { .string($0) }) }
        return object
    }
}
