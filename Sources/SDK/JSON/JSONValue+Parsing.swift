/// A strict RFC 8259 parser over UTF-8 bytes. Raw U+2028/U+2029 inside strings are legal JSON and kept.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
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
        } else { throw error("bad number") }
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
        var bytes = [UInt8](UnsafeRawBufferPointer(rebasing: buf[start..<i]))
        while i < buf.count {
            let c = buf[i]
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                guard let s = String(validating: bytes, as: UTF8.self) else { throw error("invalid UTF-8 in string") }
                return s
            case UInt8(ascii: "\\"):
                i += 1
                guard i < buf.count else { throw error("unterminated escape") }
                let e = buf[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): bytes.append(0x22)
                case UInt8(ascii: "\\"): bytes.append(0x5C)
                case UInt8(ascii: "/"): bytes.append(0x2F)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    let high = try hex4()
                    var scalar = high
                    if (0xD800...0xDBFF).contains(scalar) {
                        // Only an escaped low surrogate right after completes the pair. Anything
                        // else is left for the next iteration: it may be a high surrogate that
                        // starts a valid pair of its own.
                        scalar = 0xFFFD
                        if i + 1 < buf.count, buf[i] == UInt8(ascii: "\\"), buf[i + 1] == UInt8(ascii: "u") {
                            let next = i
                            i += 2
                            let low = try hex4()
                            if (0xDC00...0xDFFF).contains(low) {
                                scalar = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                i = next
                            }
                        }
                    } else if (0xDC00...0xDFFF).contains(scalar) { scalar = 0xFFFD }
                    appendScalar(scalar, to: &bytes)
                default: throw error("invalid escape")
                }
            default:
                if c < 0x20 { throw error("control character in string") }
                bytes.append(c)
                i += 1
            }
        }
        throw error("unterminated string")
    }

    func validatedString(_ range: Range<Int>) throws(JSONParseError) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: buf[range])
        guard let s = String(validating: slice, as: UTF8.self) else {
            throw JSONParseError(offset: range.lowerBound, reason: "invalid UTF-8 in string")
        }
        return s
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= buf.count else { throw error("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = buf[i]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("bad hex digit")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    func appendScalar(_ v: UInt32, to bytes: inout [UInt8]) {
        let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
        bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
}
