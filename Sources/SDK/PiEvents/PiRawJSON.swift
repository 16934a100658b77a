/// A JSON value kept as its bytes, parsed only if someone asks: response `data` can be a whole
/// conversation and tool arguments repeat on every update, while most consumers need neither.
public struct PiRawJSON: Sendable, Hashable {
    /// The value exactly as it appeared in the line (checked structurally, not fully validated).
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Throws `JSONParseError`.
    public func parse() throws -> JSONValue {
        try JSONValue.parse(bytes: bytes)
    }
}
