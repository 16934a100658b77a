/// `format.live` and `format.final` (supervisor → formatter): render a run view within `limit`
/// characters per message.
public struct FormatRunParams: Sendable, Equatable {
    /// The run to render.
    public var run: RunView
    /// The messenger's `maxMessageLength`; the formatter's default when absent.
    public var limit: Int?
    /// For `format.final`: at most this many messages, the rest as files.
    public var maxChunks: Int?
    /// The messenger's markup; markdown when absent.
    public var dialect: Dialect
    /// How much to show: `verbose` for a chat in `/progress verbose`; normal when absent.
    public var detail: RunDetail

    /// Render params.
    public init(run: RunView, limit: Int?, maxChunks: Int? = nil, dialect: Dialect = .markdown, detail: RunDetail = .normal) {
        self.run = run
        self.limit = limit
        self.maxChunks = maxChunks
        self.dialect = dialect
        self.detail = detail
    }
}

extension FormatRunParams: WirePayload {
    /// Reads the params; `run` must be an object, `limit` and `maxChunks` integers when present.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "params")
        guard let run = json["run"], case .object = run else { throw .invalidParams("run must be an object") }
        func integer(_ key: String) throws(RemoteError) -> Int? {
            guard let value = json[key], !value.isNull else { return nil }
            guard let number = value.intValue else { throw .invalidParams("\(key) must be an integer") }
            return number
        }
        self.init(
            run: try RunView(json: run), limit: try integer("limit"), maxChunks: try integer("maxChunks"),
            dialect: Dialect(wireName: fields.optionalString("dialect")), detail: RunDetail(wireName: fields.optionalString("detail")))
    }

    /// The params; absent numbers are left out.
    public var json: JSONValue {
        var object: JSONValue = ["run": run.json]
        object["limit"] = limit.map { JSONValue($0) }
        object["maxChunks"] = maxChunks.map { JSONValue($0) }
        if dialect != .markdown { object["dialect"] = .string(dialect.rawValue) }
        if detail != .normal { object["detail"] = .string(detail.rawValue) }
        return object
    }
}
