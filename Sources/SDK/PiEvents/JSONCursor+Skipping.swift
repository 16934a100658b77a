#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The skip: the hot path of the reader. Most bytes of a pi line sit in the partial assistant
/// message that `message_update` repeats twice, and all of them go through here.
///
/// It walks the JSON grammar token by token without decoding or allocating anything, so a
/// malformed line still fails, but the insides of skipped strings are only scanned for their
/// closing quote (escapes and UTF-8 there are not checked).
extension JSONCursor {
    /// How deep one skipped value may nest (as in `JSONValue.parse`), so hostile input cannot
    /// exhaust the stack.
    static let maxSkipDepth = 512

    mutating func skipValue() throws(JSONParseError) {
        try skipValue(depth: 0)
    }

    mutating func skipValue(depth: Int) throws(JSONParseError) {
        skipWhitespace()
        guard head < end else { throw error("unexpected end of input") }
        switch head.pointee {
        case ASCII.quote:
            head += 1
            try skipStringBody()
        case ASCII.openBrace:
            try skipObject(depth: depth + 1)
        case ASCII.openBracket:
            try skipArray(depth: depth + 1)
        case ASCII.lowerT:
            try skipLiteral("true")
        case ASCII.lowerF:
            try skipLiteral("false")
        case ASCII.lowerN:
            try skipLiteral("null")
        case ASCII.minus, ASCII.zero...ASCII.nine:
            try skipNumber()
        default:
            throw error("unexpected character")
        }
    }

    mutating func skipObject(depth: Int) throws(JSONParseError) {
        guard depth <= Self.maxSkipDepth else { throw error("nesting deeper than \(Self.maxSkipDepth)") }
        let open = head
        head += 1
        skipWhitespace()
        if head < end, head.pointee == ASCII.closeBrace {
            head += 1
            return
        }
        while true {
            guard head < end else { throw error("unterminated object", at: open) }
            guard head.pointee == ASCII.quote else { throw error("expected a string key") }
            head += 1
            try skipStringBody()
            skipWhitespace()
            guard head < end, head.pointee == ASCII.colon else { throw error("expected ':'") }
            head += 1
            try skipValue(depth: depth)
            skipWhitespace()
            guard head < end else { throw error("unterminated object", at: open) }
            let byte = head.pointee
            head += 1
            if byte == ASCII.comma {
                skipWhitespace()
                continue
            }
            if byte == ASCII.closeBrace { return }
            head -= 1
            throw error("expected ',' or '}'")
        }
    }

    mutating func skipArray(depth: Int) throws(JSONParseError) {
        guard depth <= Self.maxSkipDepth else { throw error("nesting deeper than \(Self.maxSkipDepth)") }
        let open = head
        head += 1
        skipWhitespace()
        if head < end, head.pointee == ASCII.closeBracket {
            head += 1
            return
        }
        while true {
            try skipValue(depth: depth)
            skipWhitespace()
            guard head < end else { throw error("unterminated array", at: open) }
            let byte = head.pointee
            head += 1
            if byte == ASCII.comma { continue }
            if byte == ASCII.closeBracket { return }
            head -= 1
            throw error("expected ',' or ']'")
        }
    }

    /// From just after an opening quote to just after the closing one.
    @inline(__always)
    mutating func skipStringBody() throws(JSONParseError) {
        let body = head
        var scan = head
        // Keys and short values end within a few bytes, where a plain loop beats a memchr call.
        let shortEnd = end - scan > 24 ? scan + 24 : end
        while scan < shortEnd {
            let byte = scan.pointee
            if byte == ASCII.quote {
                head = scan + 1
                return
            }
            scan += byte == ASCII.backslash ? 2 : 1
        }
        // Long string: jump from quote to quote. A quote is escaped exactly when an odd number of
        // backslashes precedes it (a run of backslashes always starts a fresh escape).
        while scan < end {
            guard let hit = memchr(scan, Int32(ASCII.quote), end - scan) else { break }
            let quote = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            var before = quote - 1
            while before >= body, before.pointee == ASCII.backslash { before -= 1 }
            if (quote - 1 - before) & 1 == 0 {
                head = quote + 1
                return
            }
            scan = quote + 1
        }
        throw error("unterminated string", at: body - 1)
    }

    mutating func skipLiteral(_ literal: StaticString) throws(JSONParseError) {
        let length = literal.utf8CodeUnitCount
        guard end - head >= length, memcmp(head, literal.utf8Start, length) == 0 else { throw error("invalid literal") }
        head += length
    }

    /// Consumes a number, checking the RFC 8259 grammar.
    mutating func skipNumber() throws(JSONParseError) {
        let numberStart = head
        if head < end, head.pointee == ASCII.minus { head += 1 }
        guard head < end, isDigit(head.pointee) else { throw error("bad number", at: numberStart) }
        if head.pointee == ASCII.zero {
            head += 1
        } else {
            while head < end, isDigit(head.pointee) { head += 1 }
        }
        if head < end, head.pointee == ASCII.dot {
            head += 1
            guard head < end, isDigit(head.pointee) else { throw error("bad fraction") }
            while head < end, isDigit(head.pointee) { head += 1 }
        }
        if head < end, head.pointee == ASCII.lowerE || head.pointee == ASCII.upperE {
            head += 1
            if head < end, head.pointee == ASCII.plus || head.pointee == ASCII.minus { head += 1 }
            guard head < end, isDigit(head.pointee) else { throw error("bad exponent") }
            while head < end, isDigit(head.pointee) { head += 1 }
        }
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool { byte &- ASCII.zero < 10 }
}

extension JSONCursor {
    /// Consumes `{` and returns true; a value of another kind (a newer pi's shape, a null) is
    /// skipped whole and false returned. Pair with `nextKey(_:)`.
    mutating func openObjectOrSkip() throws(JSONParseError) -> Bool {
        guard peek == ASCII.openBrace else {
            try skipValue()
            return false
        }
        try openObject()
        return true
    }
}
