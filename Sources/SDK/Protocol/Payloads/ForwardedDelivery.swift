/// What a session's machine sends into a chat another machine owns (`federation.deliver`): a
/// post, a live view, a closed question, as its messenger there is to get it.
public struct ForwardedDelivery: Sendable, Equatable {
    /// The messenger plugin on the machine that owns the chat.
    public var messenger: String
    /// `chat.post`, `chat.live`, `chat.typing`, `chat.question.closed` or `chat.react`.
    public var method: MethodName
    /// The delivery's id on the session's machine, for the messenger to drop a repeat; nil for a
    /// notification.
    public var id: String?
    /// The params, the target being the chat's own (as its messenger knows it).
    public var params: JSONValue

    /// A forwarded delivery.
    public init(messenger: String, method: MethodName, id: String? = nil, params: JSONValue) {
        self.messenger = messenger
        self.method = method
        self.id = id
        self.params = params
    }
}

extension ForwardedDelivery: WirePayload {
    /// Reads it; `messenger` and `method` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "forwarded delivery")
        self.init(
            messenger: try fields.string("messenger"), method: MethodName(rawValue: try fields.string("method")), id: fields.optionalString("id"),
            params: json["params"] ?? [:])
    }

    /// `{messenger, method, id?, params}`.
    public var json: JSONValue {
        var object: JSONValue = ["messenger": .string(messenger), "method": .string(method.rawValue), "params": params]
        if let id { object["id"] = .string(id) }
        return object
    }
}
