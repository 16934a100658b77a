/// Where the supervisor wants a message posted: a channel, and the thread in it if given.
public struct Target: Sendable, Hashable {
    /// The channel (for a thread, its parent).
    public var channel: String
    /// The thread to post in, if any.
    public var thread: String?

    /// A target.
    public init(channel: String, thread: String? = nil) {
        self.channel = channel
        self.thread = thread
    }

    /// Where to post: the thread when there is one, else the channel.
    public var postChannel: String { thread ?? channel }
}

extension Target: WirePayload {
    /// Reads a target; `channel` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "target")
        self.init(channel: try fields.string("channel"), thread: fields.optionalString("thread"))
    }

    /// `{channel, thread?}`.
    public var json: JSONValue {
        var object: JSONValue = ["channel": .string(channel)]
        object["thread"] = thread.map { .string($0) }
        return object
    }
}
