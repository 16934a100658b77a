/// A chat bound to a session, as the welcome lists it: `{chat: {messenger, channel, thread?}, sessionId}`.
public struct BindingSummary: Sendable, Equatable {
    /// The messenger plugin's id.
    public var messenger: String
    /// The channel (for a thread, its parent).
    public var channel: String
    /// The thread, when the binding is per thread.
    public var thread: String?
    /// The session the chat watches.
    public var sessionID: String

    /// A binding summary.
    public init(messenger: String, channel: String, thread: String? = nil, sessionID: String) {
        self.messenger = messenger
        self.channel = channel
        self.thread = thread
        self.sessionID = sessionID
    }

    /// Where the bound chat's messages go.
    public var target: Target { Target(channel: channel, thread: thread) }
}

extension BindingSummary: WirePayload {
    /// Reads a binding; `chat.channel` and `sessionId` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "binding")
        let chat = try PayloadFields(try fields.object("chat"), "binding.chat")
        self.init(
            messenger: chat.optionalString("messenger") ?? "", channel: try chat.string("channel"), thread: chat.optionalString("thread"),
            sessionID: try fields.string("sessionId"))
    }

    /// The binding as the welcome carries it.
    public var json: JSONValue {
        var chat: JSONValue = ["messenger": .string(messenger), "channel": .string(channel)]
        chat["thread"] = thread.map { .string($0) }
        return ["chat": chat, "sessionId": .string(sessionID)]
    }
}
