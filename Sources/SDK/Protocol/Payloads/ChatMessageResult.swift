/// The answer to `chat.message`: what became of it, and maybe something to show.
public struct ChatMessageResult: Sendable, Equatable {
    /// What the supervisor did with a message.
    public enum Status: String, Sendable, Equatable {
        /// Sent to the session as a prompt.
        case prompted
        /// The agent was busy: sent as a follow-up.
        case queued
        /// Sent as steering while the agent works.
        case steered
        /// The text answered an open question.
        case answered
        /// The text was a plain-text command such as `/stop`.
        case command
        /// No session here; the reply says how to pick one.
        case unbound
        /// Not for the bot, or a repeat of a message already handled.
        case ignored
        /// The user is not authorized, or the session cannot take the message now (its queue
        /// is full); the reply says why.
        case refused
        /// The text may answer the choice the last answer ended with or be a new prompt: held
        /// until the user picks one with the reply's buttons.
        case held
        /// The chat is paused (`/pause`): nothing was sent; the reply says how to resume.
        case paused
    }

    /// What happened.
    public var status: Status
    /// What to show, if anything.
    public var reply: Reply?
    /// An emoji for the user's message, e.g. `⏳` on a prompt queued behind a running turn. A
    /// messenger that can react adds it instead of showing `reply`, and takes it off when a
    /// `chat.react` with `remove` says the prompt was taken; one that cannot shows `reply`.
    public var reaction: String?

    /// A result.
    public init(status: Status, reply: Reply? = nil, reaction: String? = nil) {
        self.status = status
        self.reply = reply
        self.reaction = reaction
    }
}

extension ChatMessageResult: WirePayload {
    /// Reads a result; an unknown status is `invalid_params`.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.message result")
        let name = try fields.string("status")
        guard let status = Status(rawValue: name) else { throw .invalidParams("unknown chat.message status \(name)") }
        self.init(status: status, reply: try fields.optional("reply", as: Reply.self), reaction: fields.optionalString("reaction"))
    }

    /// The result.
    public var json: JSONValue {
        var object: JSONValue = ["status": .string(status.rawValue)]
        object["reply"] = reply?.json
        object["reaction"] = reaction.map { .string($0) }
        return object
    }
}
