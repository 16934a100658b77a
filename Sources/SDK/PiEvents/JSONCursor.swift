#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-only position in one JSON document, used by `PiEventReader` to pull out a few fields
/// and skip everything else without building values.
///
/// It works on raw pointers so the skip loops carry no bounds checks: every dereference is
/// guarded by an explicit `head < end`. The buffer must outlive the cursor.
struct JSONCursor {
    /// The start of the whole line, kept so errors report offsets into the line.
    let start: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    var head: UnsafePointer<UInt8>

    init(start: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>) {
        self.start = start
        self.end = end
        self.head = start
    }

    var atEnd: Bool { head >= end }

    /// The next byte, or nil at the end.
    var peek: UInt8? { head < end ? head.pointee : nil }

    func error(_ reason: String, at position: UnsafePointer<UInt8>? = nil) -> JSONParseError {
        JSONParseError(offset: (position ?? head) - start, reason: reason)
    }

    mutating func skipWhitespace() {
        while head < end {
            switch head.pointee {
            case 0x20, 0x0A, 0x0D, 0x09: head += 1
            default: return
            }
        }
    }

    /// Consumes `{`. Pair with `nextKey(_:)`.
    mutating func openObject() throws(JSONParseError) {
        skipWhitespace()
        guard head < end, head.pointee == ASCII.openBrace else { throw error("expected '{'") }
        head += 1
    }

    /// Moves to the next member's value and returns its key, or consumes `}` and returns nil.
    /// `first` starts true for each object; the caller must consume every returned member's value.
    mutating func nextKey(_ first: inout Bool) throws(JSONParseError) -> JSONRawString? {
        skipWhitespace()
        guard head < end else { throw error("unterminated object") }
        var byte = head.pointee
        if byte == ASCII.closeBrace {
            head += 1
            return nil
        }
        if first {
            first = false
        } else {
            guard byte == ASCII.comma else { throw error("expected ',' or '}'") }
            head += 1
            skipWhitespace()
            guard head < end else { throw error("unterminated object") }
            byte = head.pointee
        }
        guard byte == ASCII.quote else { throw error("expected a string key") }
        let key = try scanRawString()
        skipWhitespace()
        guard head < end, head.pointee == ASCII.colon else { throw error("expected ':'") }
        head += 1
        skipWhitespace()
        return key
    }

    /// Consumes `[`. Pair with `nextElement(_:)`.
    mutating func openArray() throws(JSONParseError) {
        skipWhitespace()
        guard head < end, head.pointee == ASCII.openBracket else { throw error("expected '['") }
        head += 1
    }

    /// True when another element follows (the cursor is at it); consumes `]` and returns false at the end.
    mutating func nextElement(_ first: inout Bool) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard head < end else { throw error("unterminated array") }
        let byte = head.pointee
        if byte == ASCII.closeBracket {
            head += 1
            return false
        }
        if first {
            first = false
        } else {
            guard byte == ASCII.comma else { throw error("expected ',' or ']'") }
            head += 1
            skipWhitespace()
        }
        return true
    }

    /// Only whitespace may follow the top-level value.
    mutating func expectEnd() throws(JSONParseError) {
        skipWhitespace()
        guard head >= end else { throw error("trailing characters") }
    }

    /// The bytes of the next value, skipped structurally. Leading whitespace is not included.
    mutating func valueSlice() throws(JSONParseError) -> UnsafeBufferPointer<UInt8> {
        skipWhitespace()
        let keyStart = head
        try skipValue()
        return UnsafeBufferPointer(start: keyStart, count: head - keyStart)
    }
}
