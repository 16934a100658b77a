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
        guard let bodyStart = body.baseAddress, body.count > 0 else { return .complete }
        let bodyEnd = bodyStart + body.count
        var scan = bodyStart
        while scan < bodyEnd {
            // Copy the run up to the next backslash in one go: most text has few escapes.
            let hit = memchr(scan, Int32(ASCII.backslash), bodyEnd - scan)
            let runEnd = hit.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) } ?? bodyEnd
            let run = runEnd - scan
            if run > 0 {
                let room = limit - out.count
                if run > room {
                    out.append(contentsOf: UnsafeBufferPointer(start: scan, count: room))
                    trimIncompleteTail(&out)
                    return .truncated
                }
                out.append(contentsOf: UnsafeBufferPointer(start: scan, count: run))
            }
            scan = runEnd
            guard scan < bodyEnd else { break }
            guard scan + 1 < bodyEnd else { return .invalidEscape(at: scan - bodyStart) }
            let escapeStart = scan
            let kind = scan[1]
            scan += 2
            var scalar: UInt32
            switch kind {
            case ASCII.quote, ASCII.backslash, ASCII.slash: scalar = UInt32(kind)
            case ASCII.lowerB: scalar = 0x08
            case ASCII.lowerF: scalar = 0x0C
            case ASCII.lowerN: scalar = 0x0A
            case ASCII.lowerR: scalar = 0x0D
            case ASCII.lowerT: scalar = 0x09
            case ASCII.lowerU:
                guard bodyEnd - scan >= 4, let value = hex4(scan) else { return .invalidEscape(at: escapeStart - bodyStart) }
                scan += 4
                scalar = value
                if (0xD800...0xDBFF).contains(value) {
                    // Only a directly following low-surrogate escape completes the pair; anything
                    // else leaves the high half alone and is decoded on its own.
                    if bodyEnd - scan >= 6, scan[0] == ASCII.backslash, scan[1] == ASCII.lowerU, let low = hex4(scan + 2),
                        (0xDC00...0xDFFF).contains(low)
                    {
                        scalar = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                        scan += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(value) {
                    scalar = 0xFFFD
                }
            default:
                return .invalidEscape(at: escapeStart - bodyStart)
            }
            if !appendScalar(scalar, to: &out, limit: limit) { return .truncated }
        }
        return .complete
    }

    /// Four hex digits at `q` (the caller checked they are in bounds), or nil.
    static func hex4(_ scan: UnsafePointer<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        for index in 0..<4 {
            let digit = scan[index]
            let nibble: UInt32
            switch digit {
            case 0x30...0x39: nibble = UInt32(digit &- 0x30)
            case 0x61...0x66: nibble = UInt32(digit &- 0x61 &+ 10)
            case 0x41...0x46: nibble = UInt32(digit &- 0x41 &+ 10)
            default: return nil
            }
            value = value << 4 | nibble
        }
        return value
    }

    /// UTF-8 encodes a scalar (never a surrogate here). False when it would exceed `limit`.
    static func appendScalar(_ value: UInt32, to out: inout [UInt8], limit: Int) -> Bool {
        let length = value < 0x80 ? 1 : value < 0x800 ? 2 : value < 0x10000 ? 3 : 4
        guard out.count + length <= limit else { return false }
        switch length {
        case 1:
            out.append(UInt8(value))
        case 2:
            out.append(UInt8(0xC0 | (value >> 6)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        case 3:
            out.append(UInt8(0xE0 | (value >> 12)))
            out.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (value >> 18)))
            out.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        }
        return true
    }

    /// Drops a multi-byte sequence cut by the budget, so a capped text never ends in a torn scalar.
    static func trimIncompleteTail(_ out: inout [UInt8]) {
        var index = out.count - 1
        let floor = max(0, out.count - 4)
        while index >= floor, out[index] & 0xC0 == 0x80 { index -= 1 }
        guard index >= floor else { return }
        let lead = out[index]
        let need = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        if out.count - index < need { out.removeSubrange(index...) }
    }
}
