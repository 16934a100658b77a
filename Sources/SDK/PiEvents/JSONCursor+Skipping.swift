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
        guard p < end else { throw error("unexpected end of input") }
        switch p.pointee {
        case ASCII.quote:
            p += 1
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
        let open = p
        p += 1
        skipWhitespace()
        if p < end, p.pointee == ASCII.closeBrace {
            p += 1
            return
        }
        while true {
            guard p < end else { throw error("unterminated object", at: open) }
            guard p.pointee == ASCII.quote else { throw error("expected a string key") }
            p += 1
            try skipStringBody()
            skipWhitespace()
            guard p < end, p.pointee == ASCII.colon else { throw error("expected ':'") }
            p += 1
            try skipValue(depth: depth)
            skipWhitespace()
            guard p < end else { throw error("unterminated object", at: open) }
            let c = p.pointee
            p += 1
            if c == ASCII.comma {
                skipWhitespace()
                continue
            }
            if c == ASCII.closeBrace { return }
            p -= 1
            throw error("expected ',' or '}'")
        }
    }

    mutating func skipArray(depth: Int) throws(JSONParseError) {
        guard depth <= Self.maxSkipDepth else { throw error("nesting deeper than \(Self.maxSkipDepth)") }
        let open = p
        p += 1
        skipWhitespace()
        if p < end, p.pointee == ASCII.closeBracket {
            p += 1
            return
        }
        while true {
            try skipValue(depth: depth)
            skipWhitespace()
            guard p < end else { throw error("unterminated array", at: open) }
            let c = p.pointee
            p += 1
            if c == ASCII.comma { continue }
            if c == ASCII.closeBracket { return }
            p -= 1
            throw error("expected ',' or ']'")
        }
    }

    /// From just after an opening quote to just after the closing one.
    @inline(__always)
    mutating func skipStringBody() throws(JSONParseError) {
        let body = p
        var q = p
        // Keys and short values end within a few bytes, where a plain loop beats a memchr call.
        let shortEnd = end - q > 24 ? q + 24 : end
        while q < shortEnd {
            let c = q.pointee
            if c == ASCII.quote {
                p = q + 1
                return
            }
            q += c == ASCII.backslash ? 2 : 1
        }
        // Long string: jump from quote to quote. A quote is escaped exactly when an odd number of
        // backslashes precedes it (a run of backslashes always starts a fresh escape).
        while q < end {
            guard let hit = memchr(q, Int32(ASCII.quote), end - q) else { break }
            let quote = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            var b = quote - 1
            while b >= body, b.pointee == ASCII.backslash { b -= 1 }
            if (quote - 1 - b) & 1 == 0 {
                p = quote + 1
                return
            }
            q = quote + 1
        }
        throw error("unterminated string", at: body - 1)
    }

    mutating func skipLiteral(_ literal: StaticString) throws(JSONParseError) {
        let n = literal.utf8CodeUnitCount
        guard end - p >= n, memcmp(p, literal.utf8Start, n) == 0 else { throw error("invalid literal") }
        p += n
    }

    /// Consumes a number, checking the RFC 8259 grammar.
    mutating func skipNumber() throws(JSONParseError) {
        let s = p
        if p < end, p.pointee == ASCII.minus { p += 1 }
        guard p < end, isDigit(p.pointee) else { throw error("bad number", at: s) }
        if p.pointee == ASCII.zero {
            p += 1
        } else {
            while p < end, isDigit(p.pointee) { p += 1 }
        }
        if p < end, p.pointee == ASCII.dot {
            p += 1
            guard p < end, isDigit(p.pointee) else { throw error("bad fraction") }
            while p < end, isDigit(p.pointee) { p += 1 }
        }
        if p < end, p.pointee == ASCII.lowerE || p.pointee == ASCII.upperE {
            p += 1
            if p < end, p.pointee == ASCII.plus || p.pointee == ASCII.minus { p += 1 }
            guard p < end, isDigit(p.pointee) else { throw error("bad exponent") }
            while p < end, isDigit(p.pointee) { p += 1 }
        }
    }

    @inline(__always)
    func isDigit(_ c: UInt8) -> Bool { c &- ASCII.zero < 10 }
}
