/// A JSON value kept as its bytes, parsed only if someone asks: response `data` can be a whole
/// conversation and tool arguments repeat on every update, while most consumers need neither.
package struct PiRawJSON: Sendable, Hashable {
    /// The value exactly as it appeared in the line (checked structurally, not fully validated).
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Throws `JSONParseError`.
    package func parse() throws -> JSONValue {
        try JSONValue.parse(bytes: bytes)
    }
}
