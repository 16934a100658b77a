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
        if let r = try bytes.withContiguousStorageIfAvailable({ buf in try parse(UnsafeRawBufferPointer(buf)) }) {
            return r
        }
        return try Array(bytes).withUnsafeBytes { buf in try parse(buf) }
    }

    /// Throws `JSONParseError`.
    public static func parse(_ buffer: UnsafeRawBufferPointer) throws -> JSONValue {
        var p = JSONByteParser(buffer)
        p.skipWhitespace()
        let v = try p.parseValue(depth: 0)
        p.skipWhitespace()
        guard p.atEnd else { throw p.error("trailing characters") }
        return v
    }
}

struct JSONByteParser {
    let buf: UnsafeRawBufferPointer
    var i = 0
    static let maxDepth = 512

    init(_ buf: UnsafeRawBufferPointer) { self.buf = buf }

    var atEnd: Bool { i >= buf.count }

    func error(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

    mutating func skipWhitespace() {
        while i < buf.count {
            switch buf[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        guard i < buf.count else { throw error("unexpected end of input") }
        switch buf[i] {
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
        let n = bytes.count
        guard i + n <= buf.count else { throw error("unexpected end of input") }
        for k in 0..<n where buf[i + k] != bytes[k] { throw error("invalid literal") }
        i += n
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        i += 1
        var dict: [String: JSONValue] = [:]
        skipWhitespace()
        if i < buf.count, buf[i] == UInt8(ascii: "}") { i += 1; return .object(dict) }
        while true {
            skipWhitespace()
            guard i < buf.count, buf[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard i < buf.count, buf[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
            i += 1
            skipWhitespace()
            dict[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            guard i < buf.count else { throw error("unterminated object") }
            if buf[i] == UInt8(ascii: ",") { i += 1; continue }
            if buf[i] == UInt8(ascii: "}") { i += 1; return .object(dict) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        i += 1
        var arr: [JSONValue] = []
        skipWhitespace()
        if i < buf.count, buf[i] == UInt8(ascii: "]") { i += 1; return .array(arr) }
        while true {
            skipWhitespace()
            arr.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard i < buf.count else { throw error("unterminated array") }
            if buf[i] == UInt8(ascii: ",") { i += 1; continue }
            if buf[i] == UInt8(ascii: "]") { i += 1; return .array(arr) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = i
        if buf[i] == UInt8(ascii: "-") { i += 1 }
        guard i < buf.count else { throw error("bad number") }
        if buf[i] == UInt8(ascii: "0") {
            i += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(buf[i]) {
            while i < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[i]) { i += 1 }
        } else {
            throw error("bad number")
        }
        if i < buf.count, buf[i] == UInt8(ascii: ".") {
            i += 1
            let f = i
            while i < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[i]) { i += 1 }
            guard i > f else { throw error("bad fraction") }
        }
        if i < buf.count, buf[i] == UInt8(ascii: "e") || buf[i] == UInt8(ascii: "E") {
            i += 1
            if i < buf.count, buf[i] == UInt8(ascii: "+") || buf[i] == UInt8(ascii: "-") { i += 1 }
            let e = i
            while i < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[i]) { i += 1 }
            guard i > e else { throw error("bad exponent") }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: buf[start..<i]), as: UTF8.self)
        guard let d = Double(text) else { throw JSONParseError(offset: start, reason: "bad number") }
        return d
    }

    /// Parses a string starting at the opening quote. Fast path: no escapes, copy the bytes once.
    mutating func parseString() throws(JSONParseError) -> String {
        i += 1
        let start = i
        while i < buf.count {
            let c = buf[i]
            if c == UInt8(ascii: "\"") {
                let s = try validatedString(start..<i)
                i += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("control character in string") }
            i += 1
        }
        // Escapes: find the closing quote (an escape never ends the string), then decode the
        // body with the same decoder the pi event reader uses.
        while i < buf.count {
            let c = buf[i]
            if c == UInt8(ascii: "\"") { break }
            if c == UInt8(ascii: "\\") {
                i += 2
                continue
            }
            if c < 0x20 { throw error("control character in string") }
            i += 1
        }
        guard i < buf.count else { throw error("unterminated string") }
        let body = UnsafeBufferPointer(rebasing: buf.assumingMemoryBound(to: UInt8.self)[start..<i])
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count)
        if case .invalidEscape(let at) = JSONStringDecoder.decode(body, into: &bytes, limit: .max) {
            throw JSONParseError(offset: start + at, reason: "invalid escape")
        }
        guard let string = String(validating: bytes, as: UTF8.self) else { throw error("invalid UTF-8 in string") }
        i += 1
        return string
    }

    func validatedString(_ range: Range<Int>) throws(JSONParseError) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: buf[range])
        guard let s = String(validating: slice, as: UTF8.self) else {
            throw JSONParseError(offset: range.lowerBound, reason: "invalid UTF-8 in string")
        }
        return s
    }
}
