/// A messenger's confirmed position in its inbound stream (Telegram's last update id taken in),
/// reported by the machine that holds its ingress (`messenger.cursor`, `federation.cursor`). It
/// is stored only under the lease's current epoch: the answer says whether it was.
public struct IngressCursor: Sendable, Equatable {
    /// The messenger plugin.
    public var messenger: String
    public var position: Int64

    public init(messenger: String, position: Int64) {
        self.messenger = messenger
        self.position = position
    }
}

extension IngressCursor: WirePayload {
    /// Reads it; both are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "cursor")
        self.init(messenger: try fields.string("messenger"), position: Int64(try fields.int("position")))
    }

    /// `{messenger, position}`.
    public var json: JSONValue { ["messenger": .string(messenger), "position": JSONValue(Int(position))] }
}
