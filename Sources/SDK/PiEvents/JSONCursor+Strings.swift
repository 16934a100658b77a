/// Reading the string values the reader keeps.
extension JSONCursor {
    /// Scans a short string (a key or an enum-like value) from its opening quote, checking escapes
    /// but not decoding them. The cursor ends after the closing quote.
    mutating func scanRawString() throws(JSONParseError) -> JSONRawString {
        head += 1
        let body = head
        var escaped = false
        while head < end {
            let byte = head.pointee
            if byte == ASCII.quote {
                let raw = JSONRawString(start: body, count: head - body, hasEscapes: escaped)
                head += 1
                return raw
            }
            if byte == ASCII.backslash {
                escaped = true
                guard end - head >= 2 else { break }
                switch head[1] {
                case ASCII.quote, ASCII.backslash, ASCII.slash, ASCII.lowerB, ASCII.lowerF, ASCII.lowerN,
                    ASCII.lowerR, ASCII.lowerT:
                    head += 2
                case ASCII.lowerU:
                    guard end - head >= 6, JSONStringDecoder.hex4(head + 2) != nil else { throw error("bad \\u escape") }
                    head += 6
                default:
                    throw error("invalid escape")
                }
                continue
            }
            head += 1
        }
        throw error("unterminated string", at: body - 1)
    }

    /// The body of the string value at the cursor, found with the fast skip; nil (value skipped)
    /// when the value is not a string.
    mutating func skipStringValue() throws(JSONParseError) -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard head < end, head.pointee == ASCII.quote else {
            try skipValue()
            return nil
        }
        head += 1
        let body = head
        try skipStringBody()
        return UnsafeBufferPointer(start: body, count: head - 1 - body)
    }

    /// A string value decoded; nil when the value is `null` or not a string (pi omits or nulls
    /// optional fields; a wrong type is treated as absent rather than failing the whole event).
    mutating func readString() throws(JSONParseError) -> String? {
        skipWhitespace()
        guard head < end, head.pointee == ASCII.quote else {
            try skipValue()
            return nil
        }
        let valueStart = head
        let raw = try scanRawString()
        let body = UnsafeBufferPointer(start: raw.start, count: raw.count)
        guard raw.hasEscapes else { return String(decoding: body, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        if case .invalidEscape(let at) = JSONStringDecoder.decode(body, into: &out, limit: Int.max) {
            throw error("invalid escape", at: valueStart + 1 + at)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends a string value to `out` up to `limit` bytes and skips the rest of it. Returns nil
    /// (value skipped) when the value is not a string, else whether it fit.
    mutating func readString(into out: inout [UInt8], limit: Int) throws(JSONParseError) -> Bool? {
        skipWhitespace()
        let valueStart = head
        guard let body = try skipStringValue() else { return nil }
        return try decode(body, into: &out, limit: limit, valueStart: valueStart)
    }

    /// Decodes a string body found earlier; true when it fit in `limit`.
    func decode(
        _ body: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], limit: Int,
        valueStart: UnsafePointer<UInt8>
    ) throws(JSONParseError) -> Bool {
        switch JSONStringDecoder.decode(body, into: &out, limit: limit) {
        case .complete: return true
        case .truncated: return false
        case .invalidEscape(let at): throw error("invalid escape", at: valueStart + 1 + at)
        }
    }

    /// An enum-like string value left undecoded; nil (value skipped) when not a string.
    mutating func readRawString() throws(JSONParseError) -> JSONRawString? {
        skipWhitespace()
        guard head < end, head.pointee == ASCII.quote else {
            try skipValue()
            return nil
        }
        return try scanRawString()
    }
}
