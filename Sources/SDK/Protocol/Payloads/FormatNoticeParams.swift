/// `format.notice` (supervisor → formatter): render one notice line. The answer is `FormattedText`.
public struct FormatNoticeParams: Sendable, Equatable {
    /// What it is about.
    public var notice: NoticeKind
    /// What to say.
    public var text: String
    /// The messenger's markup; markdown when absent.
    public var dialect: Dialect

    /// A notice to render.
    public init(notice: NoticeKind, text: String, dialect: Dialect = .markdown) {
        self.notice = notice
        self.text = text
        self.dialect = dialect
    }
}

extension FormatNoticeParams: WirePayload {
    /// Reads it; `notice` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "format.notice")
        guard let kind = fields.optionalString("notice") else { throw .invalidParams("notice must be a string") }
        self.init(
            notice: NoticeKind(wireName: kind), text: fields.optionalString("text") ?? "",
            dialect: Dialect(wireName: fields.optionalString("dialect")))
    }

    /// `{notice, text, dialect?}`.
    public var json: JSONValue {
        var object: JSONValue = ["notice": .string(notice.wireName), "text": .string(text)]
        if dialect != .markdown { object["dialect"] = .string(dialect.rawValue) }
        return object
    }
}
