/// The answer to `attachments.inbound`: images for pi, text to append to the prompt, and notes
/// for the user about what was left out and why.
public struct AttachmentsInboundResult: Sendable, Equatable {
    /// An image in pi's prompt format.
    public struct Image: Sendable, Equatable {
        /// Base64 of the file.
        public var data: String
        /// e.g. `image/png`.
        public var mimeType: String

        /// An image.
        public init(data: String, mimeType: String) {
            self.data = data
            self.mimeType = mimeType
        }

        /// `{type: "image", data, mimeType}`, as pi's `prompt` takes it.
        public var json: JSONValue { ["type": "image", "data": .string(data), "mimeType": .string(mimeType)] }
    }

    /// Images for the prompt.
    public var images: [Image]
    /// Attachment blocks to put below the user's text.
    public var appendix: String
    /// What the user should know.
    public var notes: [String]
    /// The words of each voice note, in order: they are the prompt, and the chat is shown them.
    public var transcripts: [String]

    /// A result.
    public init(images: [Image] = [], appendix: String = "", notes: [String] = [], transcripts: [String] = []) {
        self.images = images
        self.appendix = appendix
        self.notes = notes
        self.transcripts = transcripts
    }
}

extension AttachmentsInboundResult: WirePayload {
    /// Reads it; images without data are skipped.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "attachments.inbound result")
        let images = fields.array("images").compactMap { image -> Image? in
            guard let data = image["data"]?.stringValue else { return nil }
            return Image(data: data, mimeType: image["mimeType"]?.stringValue ?? "application/octet-stream")
        }
        self.init(
            images: images, appendix: fields.optionalString("appendix") ?? "", notes: fields.strings("notes"),
            transcripts: fields.strings("transcripts"))
    }

    /// `{images, appendix, notes, transcripts}`; no voice note, no `transcripts`.
    public var json: JSONValue {
        var object: JSONValue = ["images": .array(images.map(\.json)), "appendix": .string(appendix), "notes": notes.json]
        if !transcripts.isEmpty { object["transcripts"] = transcripts.json }
        return object
    }
}
