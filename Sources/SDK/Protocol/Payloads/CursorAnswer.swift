/// The answer to `messenger.cursor` and `federation.cursor`: whether the position was stored.
/// False means this machine no longer holds the messenger's ingress: it must stop taking
/// inbound traffic.
public struct CursorAnswer: Sendable, Equatable {
    public var stored: Bool

    public init(stored: Bool) { self.stored = stored }
}

extension CursorAnswer: WirePayload {
    /// Reads it; `stored` false when absent.
    public init(json: JSONValue) throws(RemoteError) {
        self.init(stored: try PayloadFields(json, "cursor answer").bool("stored", default: false))
    }

    /// `{stored}`.
    public var json: JSONValue { ["stored": .bool(stored)] }
}
