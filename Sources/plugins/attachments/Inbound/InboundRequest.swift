import PiRelaySDK

/// The params of `attachments.inbound`.
struct InboundRequest: Sendable, Equatable {
    let sessionID: String?
    /// False when the session's model cannot read images; absent means it can.
    let imageInput: Bool
    let items: [InboundItem]

    init(sessionID: String? = nil, imageInput: Bool = true, items: [InboundItem]) {
        self.sessionID = sessionID
        self.imageInput = imageInput
        self.items = items
    }

    init(params: JSONValue) throws(RemoteError) {
        guard case .object = params else { throw .invalidParams("attachments.inbound params must be an object") }
        guard params["items"]?.arrayValue != nil else {
            throw .invalidParams("attachments.inbound needs `items`, a list of attachments")
        }
        let request = try AttachmentsInboundParams(json: params)
        sessionID = request.sessionID.isEmpty ? nil : request.sessionID
        imageInput = request.imageInput ?? true
        items = request.items.map(InboundItem.init)
    }
}
