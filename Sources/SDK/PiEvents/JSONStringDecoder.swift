#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes the body of a JSON string (escapes resolved) into UTF-8 bytes, optionally stopping at
/// a byte budget so a huge tool output costs only the prefix it keeps.
enum JSONStringDecoder {
    enum Outcome: Equatable {
        case complete
        /// The budget ran out; `out` ends on a whole scalar.
        case truncated
        /// A malformed escape at this offset into the body.
        case invalidEscape(at: Int)
    }

    /// Appends the decoded body to `out` without letting `out.count` exceed `limit`.
    ///
    /// Lone surrogate escapes become U+FFFD (what a JS string holds cannot always be UTF-8).
    /// Raw bytes, including raw U+2028/U+2029, are copied unchanged.
    @discardableResult
    static func decode(_ body: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], limit: Int) -> Outcome {
        guard let s = body.baseAddress, body.count > 0 else { return .complete }
        let e = s + body.count
        var q = s
        while q < e {
            // Copy the run up to the next backslash in one go: most text has few escapes.
            let hit = memchr(q, Int32(ASCII.backslash), e - q)
            let runEnd = hit.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) } ?? e
            let run = runEnd - q
            if run > 0 {
                let room = limit - out.count
                if run > room {
                    out.append(contentsOf: UnsafeBufferPointer(start: q, count: room))
                    trimIncompleteTail(&out)
                    return .truncated
                }
                out.append(contentsOf: UnsafeBufferPointer(start: q, count: run))
            }
            q = runEnd
            guard q < e else { break }
            guard q + 1 < e else { return .invalidEscape(at: q - s) }
            let escapeStart = q
            let kind = q[1]
            q += 2
            var scalar: UInt32
            switch kind {
            case ASCII.quote, ASCII.backslash, ASCII.slash: scalar = UInt32(kind)
            case ASCII.lowerB: scalar = 0x08
            case ASCII.lowerF: scalar = 0x0C
            case ASCII.lowerN: scalar = 0x0A
            case ASCII.lowerR: scalar = 0x0D
            case ASCII.lowerT: scalar = 0x09
            case ASCII.lowerU:
                guard e - q >= 4, let v = hex4(q) else { return .invalidEscape(at: escapeStart - s) }
                q += 4
                scalar = v
                if (0xD800...0xDBFF).contains(v) {
                    // Only a directly following low-surrogate escape completes the pair; anything
                    // else leaves the high half alone and is decoded on its own.
                    if e - q >= 6, q[0] == ASCII.backslash, q[1] == ASCII.lowerU, let low = hex4(q + 2),
                        (0xDC00...0xDFFF).contains(low)
                    {
                        scalar = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                        q += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(v) {
                    scalar = 0xFFFD
                }
            default:
                return .invalidEscape(at: escapeStart - s)
            }
            if !appendScalar(scalar, to: &out, limit: limit) { return .truncated }
        }
        return .complete
    }

    /// Four hex digits at `q` (the caller checked they are in bounds), or nil.
    static func hex4(_ q: UnsafePointer<UInt8>) -> UInt32? {
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = q[k]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c &- 0x30)
            case 0x61...0x66: d = UInt32(c &- 0x61 &+ 10)
            case 0x41...0x46: d = UInt32(c &- 0x41 &+ 10)
            default: return nil
            }
            v = v << 4 | d
        }
        return v
    }

    /// UTF-8 encodes a scalar (never a surrogate here). False when it would exceed `limit`.
    static func appendScalar(_ v: UInt32, to out: inout [UInt8], limit: Int) -> Bool {
        let n = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4
        guard out.count + n <= limit else { return false }
        switch n {
        case 1:
            out.append(UInt8(v))
        case 2:
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        case 3:
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
        return true
    }

    /// Drops a multi-byte sequence cut by the budget, so a capped text never ends in a torn scalar.
    static func trimIncompleteTail(_ out: inout [UInt8]) {
        var k = out.count - 1
        let floor = max(0, out.count - 4)
        while k >= floor, out[k] & 0xC0 == 0x80 { k -= 1 }
        guard k >= floor else { return }
        let lead = out[k]
        let need = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        if out.count - k < need { out.removeSubrange(k...) }
    }
}
