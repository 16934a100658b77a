#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-only position in one JSON document, used by `PiEventReader` to pull out a few fields
/// and skip everything else without building values.
///
/// It works on raw pointers so the skip loops carry no bounds checks: every dereference is
/// guarded by an explicit `p < end`. The buffer must outlive the cursor.
struct JSONCursor {
    /// The start of the whole line, kept so errors report offsets into the line.
    let start: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    var p: UnsafePointer<UInt8>

    init(start: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>) {
        self.start = start
        self.end = end
        self.p = start
    }

    var atEnd: Bool { p >= end }

    /// The next byte, or nil at the end.
    var peek: UInt8? { p < end ? p.pointee : nil }

    func error(_ reason: String, at position: UnsafePointer<UInt8>? = nil) -> JSONParseError {
        JSONParseError(offset: (position ?? p) - start, reason: reason)
    }

    mutating func skipWhitespace() {
        while p < end {
            switch p.pointee {
            case 0x20, 0x0A, 0x0D, 0x09: p += 1
            default: return
            }
        }
    }

    /// Consumes `{`. Pair with `nextKey(_:)`.
    mutating func openObject() throws(JSONParseError) {
        skipWhitespace()
        guard p < end, p.pointee == ASCII.openBrace else { throw error("expected '{'") }
        p += 1
    }

    /// Moves to the next member's value and returns its key, or consumes `}` and returns nil.
    /// `first` starts true for each object; the caller must consume every returned member's value.
    mutating func nextKey(_ first: inout Bool) throws(JSONParseError) -> JSONRawString? {
        skipWhitespace()
        guard p < end else { throw error("unterminated object") }
        var c = p.pointee
        if c == ASCII.closeBrace {
            p += 1
            return nil
        }
        if first {
            first = false
        } else {
            guard c == ASCII.comma else { throw error("expected ',' or '}'") }
            p += 1
            skipWhitespace()
            guard p < end else { throw error("unterminated object") }
            c = p.pointee
        }
        guard c == ASCII.quote else { throw error("expected a string key") }
        let key = try scanRawString()
        skipWhitespace()
        guard p < end, p.pointee == ASCII.colon else { throw error("expected ':'") }
        p += 1
        skipWhitespace()
        return key
    }

    /// Consumes `[`. Pair with `nextElement(_:)`.
    mutating func openArray() throws(JSONParseError) {
        skipWhitespace()
        guard p < end, p.pointee == ASCII.openBracket else { throw error("expected '['") }
        p += 1
    }

    /// True when another element follows (the cursor is at it); consumes `]` and returns false at the end.
    mutating func nextElement(_ first: inout Bool) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard p < end else { throw error("unterminated array") }
        let c = p.pointee
        if c == ASCII.closeBracket {
            p += 1
            return false
        }
        if first {
            first = false
        } else {
            guard c == ASCII.comma else { throw error("expected ',' or ']'") }
            p += 1
            skipWhitespace()
        }
        return true
    }

    /// Only whitespace may follow the top-level value.
    mutating func expectEnd() throws(JSONParseError) {
        skipWhitespace()
        guard p >= end else { throw error("trailing characters") }
    }

    /// The bytes of the next value, skipped structurally. Leading whitespace is not included.
    mutating func valueSlice() throws(JSONParseError) -> UnsafeBufferPointer<UInt8> {
        skipWhitespace()
        let s = p
        try skipValue()
        return UnsafeBufferPointer(start: s, count: p - s)
    }
}
