#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The structural skip: the hot path of the reader. Most bytes of a pi line sit in the partial
/// assistant message that `message_update` repeats twice, and all of them go through here.
///
/// It matches brackets and finds string ends (honouring escapes) without decoding anything or
/// allocating. It is not a validator: bytes inside skipped strings are not checked.
extension JSONCursor {
    mutating func skipValue() throws(JSONParseError) {
        skipWhitespace()
        guard p < end else { throw error("unexpected end of input") }
        switch p.pointee {
        case ASCII.quote:
            p += 1
            try skipStringBody()
        case ASCII.openBrace, ASCII.openBracket:
            try skipContainer()
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

    /// From an opening bracket to just after its match. Bracket kinds are checked for the first 64
    /// levels (a bit stack in one word); deeper levels are only counted.
    mutating func skipContainer() throws(JSONParseError) {
        let open = p
        var depth = 0
        var objectLevels: UInt64 = 0
        while p < end {
            let c = p.pointee
            switch c {
            case ASCII.quote:
                p += 1
                try skipStringBody()
                continue
            case ASCII.openBrace:
                if depth < 64 { objectLevels |= 1 << UInt64(depth) }
                depth += 1
            case ASCII.openBracket:
                if depth < 64 { objectLevels &= ~(1 << UInt64(depth)) }
                depth += 1
            case ASCII.closeBrace, ASCII.closeBracket:
                depth -= 1
                if depth < 64 {
                    let isObject = (objectLevels >> UInt64(depth)) & 1 == 1
                    guard isObject == (c == ASCII.closeBrace) else { throw error("mismatched bracket") }
                }
                if depth == 0 {
                    p += 1
                    return
                }
            // Everything else that may appear between strings: whitespace, separators, numbers, literals.
            case 0x20, 0x09, 0x0A, 0x0D, ASCII.comma, ASCII.colon, ASCII.minus, ASCII.plus, ASCII.dot,
                 ASCII.zero...ASCII.nine, ASCII.lowerE, ASCII.upperE,
                 ASCII.lowerT, ASCII.lowerR, ASCII.lowerU, ASCII.lowerF, 0x61 /* a */, 0x6C /* l */,
                 0x73 /* s */, ASCII.lowerN:
                break
            default:
                throw error("unexpected character")
            }
            p += 1
        }
        throw error("unterminated \(open.pointee == ASCII.openBrace ? "object" : "array")", at: open)
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
