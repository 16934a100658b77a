/// The answer to `format.final`: the messages to post, and what did not fit as files.
public struct FormatFinalResult: Sendable, Equatable {
    /// A file made of text that did not fit in the messages.
    public struct File: Sendable, Equatable {
        /// Its name, e.g. `answer.md`.
        public var filename: String
        /// Its content.
        public var text: String

        /// A file.
        public init(filename: String, text: String) {
            self.filename = filename
            self.text = text
        }
    }

    /// The messages, each within the limit.
    public var messages: [String]
    /// Files to attach.
    public var files: [File]

    /// A final rendering.
    public init(messages: [String], files: [File] = []) {
        self.messages = messages
        self.files = files
    }
}

extension FormatFinalResult: WirePayload {
    /// Reads it; `messages` is required, files without a name or text are skipped.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "format.final result")
        guard json["messages"]?.arrayValue != nil else { throw .invalidParams("format.final result needs messages") }
        let files = fields.array("files").compactMap { file -> File? in
            guard let name = file["filename"]?.stringValue, let text = file["text"]?.stringValue else { return nil }
            return File(filename: name, text: text)
        }
        self.init(messages: fields.strings("messages"), files: files)
    }

    /// `{messages, files}`.
    public var json: JSONValue {
        ["messages": messages.json, "files": .array(files.map { ["filename": .string($0.filename), "text": .string($0.text)] })]
    }
}
