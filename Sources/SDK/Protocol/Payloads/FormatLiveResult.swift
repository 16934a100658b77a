/// The answer to `format.live`: finished chunks, each within the limit and never changed once
/// returned for a run, and the live tail to show by editing.
public struct FormatLiveResult: Sendable, Equatable {
    /// Finished chunks.
    public var chunks: [String]
    /// The part still growing.
    public var tail: String

    /// A live rendering.
    public init(chunks: [String], tail: String) {
        self.chunks = chunks
        self.tail = tail
    }
}

extension FormatLiveResult: WirePayload {
    /// Reads it; missing fields are empty.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "format.live result")
        self.init(chunks: fields.strings("chunks"), tail: fields.optionalString("tail") ?? "")
    }

    /// `{chunks, tail}`.
    public var json: JSONValue { ["chunks": chunks.json, "tail": .string(tail)] }
}
