/// `chat.typing`, a notification (supervisor → messenger): the agent is working for this chat.
public struct ChatTypingParams: Sendable, Equatable {
    /// Where to show it.
    public var target: Target

    /// A typing notice.
    public init(target: Target) { self.target = target }
}

extension ChatTypingParams: WirePayload {
    /// Reads it; `target` is required.
    public init(json: JSONValue) throws(RemoteError) {
        _ = try PayloadFields(json, "chat.typing")
        self.init(target: try Target(json: json["target"] ?? .null))
    }

    /// `{target}`.
    public var json: JSONValue { ["target": target.json] }
}
