import PiRelaySDK

/// What `LineFramer` promises for a whole stream, written the obvious way: split on LF; a line
/// longer than the cap (counting a CR before the LF) is reported by its length, with its first
/// `prefixBytes` bytes; otherwise one trailing CR is dropped; bytes after the last LF are a tail.
enum LineFramerModel {
    enum Event: Equatable, CustomStringConvertible {
        case line([UInt8])
        case oversized(bytes: Int)
        case tail(Int)

        var description: String {
            switch self {
            case .line(let b): return "line(\(b.count))"
            case .oversized(let n): return "oversized(\(n))"
            case .tail(let n): return "tail(\(n))"
            }
        }
    }

    static func events(_ stream: [UInt8], cap: Int) -> [(event: Event, prefix: [UInt8])] {
        var out: [(Event, [UInt8])] = []
        var start = 0
        while let lf = stream[start...].firstIndex(of: 0x0A) {
            let line = Array(stream[start..<lf])
            if line.count > cap {
                out.append((.oversized(bytes: line.count), Array(line.prefix(LineFramer.prefixBytes))))
            } else {
                out.append((.line(line.last == 0x0D ? Array(line.dropLast()) : line), []))
            }
            start = lf + 1
        }
        if start < stream.count { out.append((.tail(stream.count - start), [])) }
        return out
    }
}
