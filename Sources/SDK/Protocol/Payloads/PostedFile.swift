/// A file to upload with a `chat.post`: a copy in the spool directory that the messenger
/// deletes once uploaded.
public struct PostedFile: Sendable, Equatable {
    /// Where the copy is.
    public var path: String
    /// The name to show.
    public var filename: String

    /// A file.
    public init(path: String, filename: String) {
        self.path = path
        self.filename = filename
    }
}

extension PostedFile: WirePayload {
    /// Reads a file; `path` is required, `filename` defaults to the path's last component.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "file")
        let path = try fields.string("path")
        self.init(path: path, filename: fields.optionalString("filename") ?? String(path.split(separator: "/").last ?? "file"))
    }

    /// `{path, filename}`.
    public var json: JSONValue { ["path": .string(path), "filename": .string(filename)] }
}
