/// `attachments.outbound` (supervisor → attachments): check a workspace file and copy it to the
/// spool directory for a messenger to upload.
public struct AttachmentsOutboundParams: Sendable, Equatable {
    /// The session's folder; the file must resolve inside it.
    public var cwd: String
    /// The file, relative to `cwd` or absolute.
    public var path: String
    /// The messenger's upload limit.
    public var maxBytes: Int

    /// A file to send.
    public init(cwd: String, path: String, maxBytes: Int) {
        self.cwd = cwd
        self.path = path
        self.maxBytes = maxBytes
    }
}

extension AttachmentsOutboundParams: WirePayload {
    /// Reads it; `cwd` and `path` are required, `maxBytes` defaults to 8 MiB.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "attachments.outbound")
        guard let cwd = fields.optionalString("cwd"), let path = fields.optionalString("path") else {
            throw .invalidParams("attachments.outbound needs cwd and path")
        }
        self.init(cwd: cwd, path: path, maxBytes: fields.optionalInt("maxBytes") ?? 8 << 20)
    }

    /// `{cwd, path, maxBytes}`.
    public var json: JSONValue { ["cwd": .string(cwd), "path": .string(path), "maxBytes": JSONValue(maxBytes)] }
}
