/// `attachments.inbound` (supervisor → attachments): turn a chat's files into prompt content.
public struct AttachmentsInboundParams: Sendable, Equatable {
    /// The session the prompt goes to.
    public var sessionID: String
    /// Whether the session's model takes images; unknown when absent.
    public var imageInput: Bool?
    /// The files.
    public var items: [AttachmentRef]

    /// Inbound files.
    public init(sessionID: String, imageInput: Bool? = nil, items: [AttachmentRef]) {
        self.sessionID = sessionID
        self.imageInput = imageInput
        self.items = items
    }
}

extension AttachmentsInboundParams: WirePayload {
    /// Reads it; `items` must be an array.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "attachments.inbound")
        guard json["items"]?.arrayValue != nil else { throw .invalidParams("items must be an array") }
        self.init(
            sessionID: fields.optionalString("sessionId") ?? "", imageInput: fields.optionalBool("imageInput"),
            items: fields.list("items", of: AttachmentRef.self))
    }

    /// The params.
    public var json: JSONValue {
        var object: JSONValue = ["sessionId": .string(sessionID), "items": items.json]
        object["imageInput"] = imageInput.map { .bool($0) }
        return object
    }
}
