extension JSONValue {
    /// Compact JSON on one line. Object keys are sorted so output is stable for tests and logs.
    /// Only `"`, `\` and control characters are escaped: raw U+2028 is legal JSON and LF framing is
    /// unaffected because a raw LF can never appear in the output.
    public func serialized() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `serialized()` as UTF-8 bytes, without building a String.
    public func serializedBytes() -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    /// Appends the compact serialization to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let flag): out.append(contentsOf: Array((flag ? "true" : "false").utf8))
        case .number(let number): Self.writeNumber(number, to: &out)
        case .string(let string): Self.writeString(string, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeNumber(_ number: Double, to out: inout [UInt8]) {
        if !number.isFinite {
            out.append(contentsOf: Array("null".utf8))
        } else if number.rounded() == number, abs(number) < 9.0e15 {
            out.append(contentsOf: Array(String(Int64(number)).utf8))
        } else {
            out.append(contentsOf: Array(String(number).utf8))
        }
    }

    /// Appends `string` as a quoted JSON string, escaping only `"`, `\` and control characters.
    public static func writeString(_ string: String, to out: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            // Runs of bytes that need no escape are copied in one go.
            var run = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if run < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index])) }
                run = index + 1
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(0x5C); out.append(byte)
                case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            if run < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...])) }
            out.append(UInt8(ascii: "\""))
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact serialization, as `serialized()` gives it.
    public var description: String { serialized() }
}
