/// `chat.presence`, a notification (supervisor → messenger): a status line for the bot, where
/// the messenger has one.
public struct PresenceParams: Sendable, Equatable {
    /// The line, e.g. `2 sessions running`.
    public var text: String

    /// A presence line.
    public init(text: String) { self.text = text }
}

extension PresenceParams: WirePayload {
    /// Reads it; a missing text is empty.
    public init(json: JSONValue) throws(RemoteError) {
        self.init(text: try PayloadFields(json, "chat.presence").optionalString("text") ?? "")
    }

    /// `{text}`.
    public var json: JSONValue { ["text": .string(text)] }
}
