/// A text to redact (`format.redact` params), or text rendered by the formatter (the answer to
/// `format.notice` and `format.redact`).
public struct FormattedText: Sendable, Equatable {
    /// The text.
    public var text: String

    /// A text.
    public init(text: String) { self.text = text }
}

extension FormattedText: WirePayload {
    /// Reads it; `text` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "params")
        guard let text = fields.optionalString("text") else { throw .invalidParams("text must be a string") }
        self.init(text: text)
    }

    /// `{text}`.
    public var json: JSONValue { ["text": .string(text)] }
}
