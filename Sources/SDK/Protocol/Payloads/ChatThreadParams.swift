/// `chat.thread`: open a thread (a topic, where the messenger calls them that) under a chat's
/// channel for a new session. The answer is the thread as a `Target`; the supervisor binds it.
public struct ChatThreadParams: Sendable, Equatable {
    /// Where the thread goes: the target's `channel` (a thread's parent, when the asking chat is
    /// a thread itself, since threads do not nest).
    public var target: Target
    /// The thread's name, usually the session's.
    public var name: String
    /// The session the thread is for, for the messenger's logs.
    public var sessionID: String

    /// A thread request.
    public init(target: Target, name: String, sessionID: String) {
        self.target = target
        self.name = name
        self.sessionID = sessionID
    }
}

extension ChatThreadParams: WirePayload {
    /// Reads a thread request; every field is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.thread")
        self.init(target: try Target(json: json["target"] ?? .null), name: try fields.string("name"), sessionID: try fields.string("sessionId"))
    }

    /// The params.
    public var json: JSONValue { ["target": target.json, "name": .string(name), "sessionId": .string(sessionID)] }
}
