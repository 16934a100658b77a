/// A strict RFC 8259 parser over UTF-8 bytes. Raw U+2028/U+2029 inside strings are legal JSON and kept.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    /// The byte offset into the input where parsing failed.
    public let offset: Int
    /// What was wrong there.
    public let reason: String
    /// `invalid JSON at byte N: reason`.
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Throws `JSONParseError`.
    public static func parse(_ text: String) throws -> JSONValue {
        var copy = text
        return try copy.withUTF8 { buf in try parse(UnsafeRawBufferPointer(buf)) }
    }

    /// Throws `JSONParseError`.
    public static func parse<Bytes: Collection<UInt8>>(bytes: Bytes) throws -> JSONValue {
        if let value = try bytes.withContiguousStorageIfAvailable({ buf in try parse(UnsafeRawBufferPointer(buf)) }) {
            return value
        }
        return try Array(bytes).withUnsafeBytes { buf in try parse(buf) }
    }

    /// Throws `JSONParseError`.
    public static func parse(_ buffer: UnsafeRawBufferPointer) throws -> JSONValue {
        var parser = JSONByteParser(buffer)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.atEnd else { throw parser.error("trailing characters") }
        return value
    }
}

struct JSONByteParser {
    let buf: UnsafeRawBufferPointer
    var position = 0
    static let maxDepth = 512

    init(_ buf: UnsafeRawBufferPointer) { self.buf = buf }

    var atEnd: Bool { position >= buf.count }

    func error(_ reason: String) -> JSONParseError { JSONParseError(offset: position, reason: reason) }

    mutating func skipWhitespace() {
        while position < buf.count {
            switch buf[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        guard position < buf.count else { throw error("unexpected end of input") }
        switch buf[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    mutating func expectLiteral(_ lit: String) throws(JSONParseError) {
        let bytes = Array(lit.utf8)
        let length = bytes.count
        guard position + length <= buf.count else { throw error("unexpected end of input") }
        for offset in 0..<length where buf[position + offset] != bytes[offset] { throw error("invalid literal") }
        position += length
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        position += 1
        var dict: [String: JSONValue] = [:]
        skipWhitespace()
        if position < buf.count, buf[position] == UInt8(ascii: "}") { position += 1; return .object(dict) }
        while true {
            skipWhitespace()
            guard position < buf.count, buf[position] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard position < buf.count, buf[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            dict[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            guard position < buf.count else { throw error("unterminated object") }
            if buf[position] == UInt8(ascii: ",") { position += 1; continue }
            if buf[position] == UInt8(ascii: "}") { position += 1; return .object(dict) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        position += 1
        var arr: [JSONValue] = []
        skipWhitespace()
        if position < buf.count, buf[position] == UInt8(ascii: "]") { position += 1; return .array(arr) }
        while true {
            skipWhitespace()
            arr.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard position < buf.count else { throw error("unterminated array") }
            if buf[position] == UInt8(ascii: ",") { position += 1; continue }
            if buf[position] == UInt8(ascii: "]") { position += 1; return .array(arr) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = position
        if buf[position] == UInt8(ascii: "-") { position += 1 }
        guard position < buf.count else { throw error("bad number") }
        if buf[position] == UInt8(ascii: "0") {
            position += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(buf[position]) {
            while position < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[position]) { position += 1 }
        } else {
            throw error("bad number")
        }
        if position < buf.count, buf[position] == UInt8(ascii: ".") {
            position += 1
            let fractionStart = position
            while position < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[position]) { position += 1 }
            guard position > fractionStart else { throw error("bad fraction") }
        }
        if position < buf.count, buf[position] == UInt8(ascii: "e") || buf[position] == UInt8(ascii: "E") {
            position += 1
            if position < buf.count, buf[position] == UInt8(ascii: "+") || buf[position] == UInt8(ascii: "-") { position += 1 }
            let exponentStart = position
            while position < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[position]) { position += 1 }
            guard position > exponentStart else { throw error("bad exponent") }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: buf[start..<position]), as: UTF8.self)
        guard let number = Double(text) else { throw JSONParseError(offset: start, reason: "bad number") }
        return number
    }

    /// Parses a string starting at the opening quote. Fast path: no escapes, copy the bytes once.
    mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        while position < buf.count {
            let byte = buf[position]
            if byte == UInt8(ascii: "\"") {
                let text = try validatedString(start..<position)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            position += 1
        }
        // Escapes: find the closing quote (an escape never ends the string), then decode the
        // body with the same decoder the pi event reader uses.
        while position < buf.count {
            let byte = buf[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                position += 2
                continue
            }
            if byte < 0x20 { throw error("control character in string") }
            position += 1
        }
        guard position < buf.count else { throw error("unterminated string") }
        let body = UnsafeBufferPointer(rebasing: buf.assumingMemoryBound(to: UInt8.self)[start..<position])
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count)
        if case .invalidEscape(let at) = JSONStringDecoder.decode(body, into: &bytes, limit: .max) {
            throw JSONParseError(offset: start + at, reason: "invalid escape")
        }
        guard let string = String(validating: bytes, as: UTF8.self) else { throw error("invalid UTF-8 in string") }
        position += 1
        return string
    }

    func validatedString(_ range: Range<Int>) throws(JSONParseError) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: buf[range])
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw JSONParseError(offset: range.lowerBound, reason: "invalid UTF-8 in string")
        }
        return string
    }
}
