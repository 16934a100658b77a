/// `messenger.identity`: who the bot is, asked of a messenger plugin by `pi-relayd setup` (to
/// check a token) and by the daemon for `pi-relayd pair` (for a link that claims a code).
public struct MessengerIdentityParams: Sendable, Equatable {
    /// A pairing code to build `pairLink` around, when the messenger has such links.
    public var pairCode: String?
    /// Also check what a running bot sets up for itself (Discord's slash commands), and name
    /// what is missing in `problems`: `pi-relayd doctor` asks for it, `setup` does not (before a
    /// first start nothing is set up yet).
    public var checkSetup: Bool

    /// An identity request.
    public init(pairCode: String? = nil, checkSetup: Bool = false) {
        self.pairCode = pairCode
        self.checkSetup = checkSetup
    }
}

extension MessengerIdentityParams: WirePayload {
    /// Reads it; every field is optional.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "messenger.identity")
        self.init(pairCode: fields.optionalString("pairCode"), checkSetup: fields.bool("checkSetup", default: false))
    }

    /// `{pairCode?, checkSetup?}`.
    public var json: JSONValue {
        var object: JSONValue = [:]
        if let pairCode { object["pairCode"] = .string(pairCode) }
        if checkSetup { object["checkSetup"] = true }
        return object
    }
}
