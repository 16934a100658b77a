#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The undecoded body of a JSON string (between the quotes), used for keys and enum-like values
/// so they can be compared against static names without creating a `String`.
struct JSONRawString {
    let start: UnsafePointer<UInt8>
    let count: Int
    /// Set when the body contains a backslash; such strings are compared after decoding.
    let hasEscapes: Bool

    func matches(_ name: StaticString) -> Bool {
        if hasEscapes { return decoded() == name.description }
        return count == name.utf8CodeUnitCount && memcmp(start, name.utf8Start, count) == 0
    }

    /// The decoded text. `JSONCursor.scanRawString()` has already checked the escapes.
    func decoded() -> String {
        let body = UnsafeBufferPointer(start: start, count: count)
        guard hasEscapes else { return String(decoding: body, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        JSONStringDecoder.decode(body, into: &out, limit: Int.max)
        return String(decoding: out, as: UTF8.self)
    }
}
