/// `messenger.identity`: who the bot is, asked of a messenger plugin by `pi-relayd setup` (to
/// check a token) and by the daemon for `pi-relayd pair` (for a link that claims a code).
public struct MessengerIdentityParams: Sendable, Equatable {
    /// A pairing code to build `pairLink` around, when the messenger has such links.
    public var pairCode: String?

    /// An identity request.
    public init(pairCode: String? = nil) { self.pairCode = pairCode }
}

extension MessengerIdentityParams: WirePayload {
    /// Reads it; every field is optional.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "messenger.identity")
        self.init(pairCode: fields.optionalString("pairCode"))
    }

    /// `{pairCode?}`.
    public var json: JSONValue {
        var object: JSONValue = [:]
        if let pairCode { object["pairCode"] = .string(pairCode) }
        return object
    }
}
