/// A chat request that crosses machines (`federation.forward`, `federation.received`): what a
/// messenger asked on the machine that owns the chat, for the machine that runs the session,
/// with what that machine needs to answer in the chat's own markup and sizes.
public struct ForwardedRequest: Sendable, Equatable {
    /// The other machine: where it goes (`federation.forward`) or where it came from
    /// (`federation.received`).
    public var machine: String
    /// The messenger plugin the chat is on, on the machine that owns it.
    public var messenger: String
    /// That messenger's markup, as its hello declares it.
    public var dialect: Dialect?
    /// That messenger's limits, as its hello declares them (`maxMessageLength`, `liveIntervalMs`, …).
    public var limits: [String: Int]
    /// `chat.message`, `chat.command` or `chat.answer`.
    public var method: MethodName
    /// The request's params, as the messenger sent them.
    public var params: JSONValue
    /// For a shared messenger's message (`federation.forward` only): its id, claimed for this
    /// machine in the statement that sends the request, so the message is routed once across
    /// the machines that may both have taken it.
    public var claim: String?
    /// A chat message's attachments as its prompt takes them, made on the machine that owns the
    /// chat (its messenger's file links may hold the bot token, and its files are paths there):
    /// the message's `attachments` then carry only names, types and sizes.
    public var prepared: AttachmentsInboundResult?

    /// A forwarded request.
    public init(
        machine: String, messenger: String, dialect: Dialect? = nil, limits: [String: Int] = [:], method: MethodName, params: JSONValue,
        claim: String? = nil, prepared: AttachmentsInboundResult? = nil
    ) {
        self.machine = machine
        self.messenger = messenger
        self.dialect = dialect
        self.limits = limits
        self.method = method
        self.params = params
        self.claim = claim
        self.prepared = prepared
    }
}

extension ForwardedRequest: WirePayload {
    /// Reads it; `machine`, `messenger` and `method` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "forwarded request")
        var limits: [String: Int] = [:]
        for (key, value) in json["limits"]?.objectValue ?? [:] { limits[key] = value.intValue }
        self.init(
            machine: try fields.string("machine"), messenger: try fields.string("messenger"),
            dialect: fields.optionalString("dialect").flatMap(Dialect.init(rawValue:)), limits: limits,
            method: MethodName(rawValue: try fields.string("method")), params: json["params"] ?? [:], claim: fields.optionalString("claim"),
            prepared: try json["prepared"].map(AttachmentsInboundResult.init(json:)))
    }

    /// `{machine, messenger, dialect?, limits, method, params, claim?, prepared?}`.
    public var json: JSONValue {
        var object: JSONValue = [
            "machine": .string(machine), "messenger": .string(messenger), "limits": .object(limits.mapValues { JSONValue($0) }),
            "method": .string(method.rawValue), "params": params,
        ]
        if let dialect { object["dialect"] = .string(dialect.rawValue) }
        if let claim { object["claim"] = .string(claim) }
        if let prepared { object["prepared"] = prepared.json }
        return object
    }
}
