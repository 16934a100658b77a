/// The answer to `attachments.outbound`: the spooled copy to upload.
public struct AttachmentsOutboundResult: Sendable, Equatable {
    /// The copy in the spool directory.
    public var path: String
    /// The name to show.
    public var filename: String
    /// Its size in bytes.
    public var size: Int
    /// Its MIME type.
    public var mimeType: String

    /// A spooled file.
    public init(path: String, filename: String, size: Int, mimeType: String) {
        self.path = path
        self.filename = filename
        self.size = size
        self.mimeType = mimeType
    }
}

extension AttachmentsOutboundResult: WirePayload {
    /// Reads it; `path` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "attachments.outbound result")
        let path = try fields.string("path")
        self.init(
            path: path, filename: fields.optionalString("filename") ?? String(path.split(separator: "/").last ?? "file"),
            size: fields.optionalInt("size") ?? 0, mimeType: fields.optionalString("mimeType") ?? "application/octet-stream")
    }

    /// `{path, filename, size, mimeType}`.
    public var json: JSONValue {
        ["path": .string(path), "filename": .string(filename), "size": JSONValue(size), "mimeType": .string(mimeType)]
    }
}
