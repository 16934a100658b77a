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
        case .bool(let b): out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .number(let n): Self.writeNumber(n, to: &out)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, v) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                v.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (k, key) in o.keys.sorted().enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                o[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeNumber(_ n: Double, to out: inout [UInt8]) {
        if !n.isFinite {
            out.append(contentsOf: Array("null".utf8))
        } else if n.rounded() == n, abs(n) < 9.0e15 {
            out.append(contentsOf: Array(String(Int64(n)).utf8))
        } else {
            out.append(contentsOf: Array(String(n).utf8))
        }
    }

    /// Appends `s` as a quoted JSON string, escaping only `"`, `\` and control characters.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            // Runs of bytes that need no escape are copied in one go.
            var run = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                if run < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i])) }
                run = i + 1
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(0x5C); out.append(b)
                case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 0xF)]])
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
