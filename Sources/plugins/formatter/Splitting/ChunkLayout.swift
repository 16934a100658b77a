/// A document prepared for splitting: for every boundary between units, how good a break it is
/// and which fence, if any, is open there. Everything is computed from the text before the
/// boundary and the line it lies on, so a cut decision never depends on text further on than the
/// end of that line (the live view relies on this to finalize chunks early).
struct ChunkLayout {
    let map: GraphemeMap
    /// Break class of boundary k (before unit k), `map.count + 1` entries.
    private(set) var breaks: [BreakClass]
    /// Index into `fences` of the fence open at boundary k, or -1.
    private(set) var fenceAt: [Int32]
    private(set) var fences: [Fence] = []

    init(_ text: String) {
        map = GraphemeMap(text)
        let n = map.count
        breaks = Array(repeating: .cluster, count: n + 1)
        fenceAt = Array(repeating: -1, count: n + 1)
        breaks[0] = .forbidden
        layOutLines()
        for k in map.clusterInterior { breaks[k] = .forbidden }
    }

    func fence(at k: Int) -> Fence? {
        let f = fenceAt[k]
        return f < 0 ? nil : fences[Int(f)]
    }

    @inline(__always)
    func isNewline(_ k: Int) -> Bool {
        if let b = map.ascii(k) { return b == 0x0A }
        // A CR LF pair is one cluster.
        let s = Int(map.utf8Start[k])
        return map.utf8Start[k + 1] - map.utf8Start[k] == 2 && map.bytes[s] == 0x0D && map.bytes[s + 1] == 0x0A
    }

    @inline(__always)
    func isSpace(_ k: Int) -> Bool {
        let b = map.ascii(k)
        return b == 0x20 || b == 0x09
    }

    private mutating func layOutLines() {
        let n = map.count
        var open: Int32 = -1
        var previous: LineShape = .none
        var start = 0
        while start <= n {
            var end = start
            while end < n, !isNewline(end) { end += 1 }
            let lineBytes = map.bytes[Int(map.utf8Start[start])..<Int(map.utf8Start[end])]
            let before = open
            let shape: LineShape
            if open >= 0 {
                if fences[Int(open)].isClosed(by: lineBytes) {
                    shape = .fenceClose
                    open = -1
                } else {
                    shape = .code
                }
            } else if let f = Fence.opening(lineBytes) {
                fences.append(f)
                open = Int32(fences.count - 1)
                shape = .fenceOpen
            } else {
                shape = lineBytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) ? .blank : .text
            }

            // The boundary at the start of this line.
            if start > 0, start <= n {
                fenceAt[start] = before
                if start == n {
                    breaks[start] = .line
                } else if shape == .fenceClose || previous == .fenceOpen {
                    // Neither an empty block at the end of a chunk nor one at the start of the next.
                    breaks[start] = .forbidden
                } else if before >= 0 {
                    breaks[start] = .line
                } else if previous == .blank || previous == .fenceClose || shape == .fenceOpen
                            || map.ascii(start) == UInt8(ascii: "#") {
                    breaks[start] = .paragraph
                } else {
                    breaks[start] = .line
                }
            }
            // Boundaries inside the line, up to and including the one before its LF.
            if start < end {
                let inside: Int32 = shape == .code ? before : (shape == .fenceClose ? before : open)
                let fenceLine = shape == .fenceOpen || shape == .fenceClose
                for k in (start + 1)...end {
                    fenceAt[k] = shape == .fenceOpen ? -1 : inside
                    if fenceLine {
                        breaks[k] = .forbidden
                    } else if k < end, isSpace(k - 1), !isSpace(k) {
                        breaks[k] = .word
                    } else {
                        breaks[k] = .cluster
                    }
                }
                if shape == .text { markAtoms(start, end) }
            }
            previous = shape
            if end >= n { break }
            start = end + 1
        }
        fenceAt[n] = open
    }

    /// Marks the inside of inline code, links, images, autolinks and bare URLs on one text line as
    /// forbidden: a cut there would break their rendering in both chunks.
    private mutating func markAtoms(_ start: Int, _ end: Int) {
        var k = start
        while k < end {
            guard let b = map.ascii(k) else { k += 1; continue }
            if b == UInt8(ascii: "\\") { k += 2; continue }
            var atomEnd: Int?
            switch b {
            case UInt8(ascii: "`"): atomEnd = inlineCodeEnd(k, end)
            case UInt8(ascii: "["): atomEnd = linkEnd(k, end)
            case UInt8(ascii: "!") where k + 1 < end && map.ascii(k + 1) == UInt8(ascii: "["): atomEnd = linkEnd(k + 1, end)
            case UInt8(ascii: "<"): atomEnd = autolinkEnd(k, end)
            case UInt8(ascii: "h") where k == start || !isWordUnit(k - 1): atomEnd = bareURLEnd(k, end)
            default: break
            }
            if let e = atomEnd, e > k + 1 {
                for j in (k + 1)..<e { breaks[j] = .forbidden }
                k = e
            } else if b == UInt8(ascii: "`") {
                // An unmatched run of backticks is literal text: skip the whole run.
                while k < end, map.ascii(k) == UInt8(ascii: "`") { k += 1 }
            } else {
                k += 1
            }
        }
    }

    private func isWordUnit(_ k: Int) -> Bool {
        guard let b = map.ascii(k) else { return true }
        return (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == UInt8(ascii: "_")
    }

    /// End (exclusive) of the code span whose opening backtick run starts at `k`.
    private func inlineCodeEnd(_ k: Int, _ end: Int) -> Int? {
        var j = k
        while j < end, map.ascii(j) == UInt8(ascii: "`") { j += 1 }
        let run = j - k
        while j < end {
            if map.ascii(j) == UInt8(ascii: "`") {
                var r = j
                while r < end, map.ascii(r) == UInt8(ascii: "`") { r += 1 }
                if r - j == run { return r }
                j = r
            } else {
                j += 1
            }
        }
        return nil
    }

    /// End (exclusive) of `[text](target)` starting at the `[` at `k`.
    private func linkEnd(_ k: Int, _ end: Int) -> Int? {
        var j = k + 1
        var depth = 1
        while j < end {
            let b = map.ascii(j)
            if b == UInt8(ascii: "\\") { j += 2; continue }
            if b == UInt8(ascii: "[") { depth += 1 }
            if b == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { break }
            }
            j += 1
        }
        guard j + 1 < end, map.ascii(j + 1) == UInt8(ascii: "(") else { return nil }
        j += 2
        depth = 1
        while j < end {
            let b = map.ascii(j)
            if b == UInt8(ascii: "\\") { j += 2; continue }
            if b == UInt8(ascii: "(") { depth += 1 }
            if b == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return j + 1 }
            }
            j += 1
        }
        return nil
    }

    /// End (exclusive) of `<scheme:...>` starting at `k`.
    private func autolinkEnd(_ k: Int, _ end: Int) -> Int? {
        guard hasPrefix("http", at: k + 1, end) || hasPrefix("mailto:", at: k + 1, end) else { return nil }
        var j = k + 1
        while j < end {
            let b = map.ascii(j)
            if b == UInt8(ascii: ">") { return j + 1 }
            if b == 0x20 || b == UInt8(ascii: "<") { return nil }
            j += 1
        }
        return nil
    }

    /// End (exclusive) of a bare `http(s)://` URL starting at `k`: up to the next space.
    private func bareURLEnd(_ k: Int, _ end: Int) -> Int? {
        guard hasPrefix("https://", at: k, end) || hasPrefix("http://", at: k, end) else { return nil }
        var j = k
        while j < end, !isSpace(j) { j += 1 }
        return j
    }

    private func hasPrefix(_ prefix: StaticString, at k: Int, _ end: Int) -> Bool {
        var j = k
        for i in 0..<prefix.utf8CodeUnitCount {
            guard j < end, map.ascii(j) == prefix.utf8Start[i] else { return false }
            j += 1
        }
        return true
    }
}
