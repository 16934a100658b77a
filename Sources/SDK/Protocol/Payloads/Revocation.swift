/// A chat user revoked on one machine of a federation, for every machine that shares the
/// messenger's bot: whoever holds the bot must refuse them, and a machine that paired them too
/// drops its pairing, unless it paired them after this.
///
/// A daemon lists the revocations made on it in `relay.status` (`number` nil: the database has
/// not counted it yet); the federation plugin writes them to the database and reports every
/// machine's back in `federation.machines`, numbered in the order the database took them.
public struct Revocation: Sendable, Equatable {
    /// The messenger the user was revoked on.
    public var messenger: String
    /// The user's id there.
    public var user: String
    /// Unique to this revocation (drawn where it was made): written to the database once.
    public var stamp: String
    /// When it was made, ISO 8601, on the clock of the machine reading it.
    public var at: String
    /// The database's order (1, 2, …); nil until the database has it.
    public var number: Int?
    /// The machine it was made on; nil in `relay.status` (this machine).
    public var machine: String?

    /// A revocation.
    public init(messenger: String, user: String, stamp: String, at: String, number: Int? = nil, machine: String? = nil) {
        self.messenger = messenger
        self.user = user
        self.stamp = stamp
        self.at = at
        self.number = number
        self.machine = machine
    }
}

extension Revocation: WirePayload {
    /// Reads it; `number` and `machine` may be left out.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "revocation")
        self.init(
            messenger: try fields.string("messenger"), user: try fields.string("user"), stamp: try fields.string("stamp"),
            at: try fields.string("at"), number: fields.optionalInt("number"), machine: fields.optionalString("machine"))
    }

    /// `{messenger, user, stamp, at, number?, machine?}`.
    public var json: JSONValue {
        var object: JSONValue = ["messenger": .string(messenger), "user": .string(user), "stamp": .string(stamp), "at": .string(at)]
        if let number { object["number"] = JSONValue(number) }
        if let machine { object["machine"] = .string(machine) }
        return object
    }
}
