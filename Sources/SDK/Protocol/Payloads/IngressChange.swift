/// Whether this machine takes a messenger's inbound traffic now (`federation.ingress` from the
/// federation plugin, `messenger.ingress` to the messenger, and the welcome's `ingress`). Several
/// machines sharing one bot token let one of them, the lease's holder, poll or hold the socket;
/// the others stand by.
public struct IngressChange: Sendable, Equatable {
    /// The messenger plugin.
    public var messenger: String
    /// Take inbound traffic (poll, hold the socket) or stand by.
    public var active: Bool
    /// The lease's epoch while active.
    public var epoch: Int64?
    /// The shared position to start from (Telegram's last confirmed update id), when one is stored.
    public var cursor: Int64?
    /// Why it stands by, for the log.
    public var reason: String?

    /// A change.
    public init(messenger: String, active: Bool, epoch: Int64? = nil, cursor: Int64? = nil, reason: String? = nil) {
        self.messenger = messenger
        self.active = active
        self.epoch = epoch
        self.cursor = cursor
        self.reason = reason
    }
}

extension IngressChange: WirePayload {
    /// Reads it; `messenger` is required, `active` false when absent.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "ingress")
        self.init(
            messenger: try fields.string("messenger"), active: fields.bool("active", default: false),
            epoch: fields.optionalInt("epoch").map(Int64.init), cursor: fields.optionalInt("cursor").map(Int64.init),
            reason: fields.optionalString("reason"))
    }

    /// `{messenger, active, epoch?, cursor?, reason?}`.
    public var json: JSONValue {
        var object: JSONValue = ["messenger": .string(messenger), "active": .bool(active)]
        if let epoch { object["epoch"] = JSONValue(Int(epoch)) }
        if let cursor { object["cursor"] = JSONValue(Int(cursor)) }
        if let reason { object["reason"] = .string(reason) }
        return object
    }
}
