/// A method's params or result as a Swift type (docs/PROTOCOL.md §6). Decoding is as lenient as
/// the document allows: unknown fields are ignored, optional fields of the wrong type count as
/// absent, and a missing required field is `invalid_params`.
public protocol WirePayload: Sendable {
    /// Reads the payload from a message's `params` or `result`.
    init(json: JSONValue) throws(RemoteError)
    /// The payload as it goes on the wire.
    var json: JSONValue { get }
}

extension JSONValue: WirePayload {
    /// Any JSON, as it is: for results that are free-form (`status`).
    public init(json: JSONValue) { self = json }
    /// The value itself.
    public var json: JSONValue { self }
}

/// An empty object: the params of `status`, the result of a delivery.
public struct NoPayload: WirePayload, Equatable {
    /// The empty payload.
    public init() {}
    /// Anything is accepted and ignored.
    public init(json: JSONValue) {}
    /// `{}`.
    public var json: JSONValue { [:] }
}
