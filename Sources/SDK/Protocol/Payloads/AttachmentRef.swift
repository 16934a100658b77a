/// A file handed over with a message or for the attachments plugin to read: by `url`
/// (a messenger's download link) or by `path` (a file on this machine).
public struct AttachmentRef: Sendable, Equatable {
    /// Where to download it.
    public var url: String?
    /// Where it is on this machine.
    public var path: String?
    /// Its name, as the user sees it; empty when the messenger gave none.
    public var filename: String
    /// Its size in bytes, if the messenger says.
    public var size: Int?
    /// Its MIME type, if the messenger says.
    public var contentType: String?
    /// A voice note (Telegram's `voice`, Slack's audio clip, Discord's voice message): its words
    /// are the prompt (the attachments plugin transcribes it).
    public var voice: Bool
    /// How long it plays, in seconds, if the messenger says.
    public var seconds: Int?

    /// A file by URL or by path.
    public init(
        url: String? = nil, path: String? = nil, filename: String, size: Int? = nil, contentType: String? = nil, voice: Bool = false,
        seconds: Int? = nil
    ) {
        self.url = url
        self.path = path
        self.filename = filename
        self.size = size
        self.contentType = contentType
        self.voice = voice
        self.seconds = seconds
    }
}

extension AttachmentRef: WirePayload {
    /// Reads an attachment; a missing `filename` reads as empty, for the reader to name it.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "attachment")
        self.init(
            url: fields.optionalString("url"), path: fields.optionalString("path"), filename: fields.optionalString("filename") ?? "",
            size: fields.optionalInt("size"), contentType: fields.optionalString("contentType"), voice: fields.optionalBool("voice") ?? false,
            seconds: fields.optionalInt("seconds"))
    }

    /// The attachment; absent fields are left out.
    public var json: JSONValue {
        var object: JSONValue = ["filename": .string(filename)]
        object["url"] = url.map { .string($0) }
        object["path"] = path.map { .string($0) }
        object["size"] = size.map { JSONValue($0) }
        object["contentType"] = contentType.map { .string($0) }
        if voice { object["voice"] = true }
        object["seconds"] = seconds.map { JSONValue($0) }
        return object
    }
}
