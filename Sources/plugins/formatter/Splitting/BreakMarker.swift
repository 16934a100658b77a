/// Fills in a `ChunkLayout`'s break classes and fence states, line by line. It works on raw
/// buffers because it touches every unit of every document, and debug builds (the tests) are
/// many times slower through array accessors.
struct BreakMarker {
    let map: GraphemeMap
    let kinds: UnsafeBufferPointer<UInt8>
    let breaks: UnsafeMutableBufferPointer<BreakClass>
    let fenceAt: UnsafeMutableBufferPointer<Int32>
    private(set) var fences: [Fence] = []

    init(
        map: GraphemeMap, kinds: UnsafeBufferPointer<UInt8>, breaks: UnsafeMutableBufferPointer<BreakClass>,
        fenceAt: UnsafeMutableBufferPointer<Int32>
    ) {
        self.map = map
        self.kinds = kinds
        self.breaks = breaks
        self.fenceAt = fenceAt
    }

    @inline(__always)
    func isNewline(_ unit: Int) -> Bool {
        let kind = kinds[unit]
        if kind != GraphemeMap.notASCII { return kind == 0x0A }
        // A CR LF pair is one cluster.
        let byteStart = Int(map.utf8Start[unit])
        return map.utf8Start[unit + 1] - map.utf8Start[unit] == 2 && map.bytes[byteStart] == 0x0D && map.bytes[byteStart + 1] == 0x0A
    }

    @inline(__always)
    func isSpace(_ unit: Int) -> Bool {
        let kind = kinds[unit]
        return kind == 0x20 || kind == 0x09
    }

    mutating func layOutLines() {
        let unitCount = map.count
        var open: Int32 = -1
        var previous: LineShape = .none
        var start = 0
        while start <= unitCount {
            var end = start
            var blank = true
            var first: UInt8 = 0
            while end < unitCount, !isNewline(end) {
                if blank, !isSpace(end), kinds[end] != 0x0D {
                    blank = false
                    first = kinds[end]
                }
                end += 1
            }
            let before = open
            let shape: LineShape
            // Only a line whose first character is a backtick or tilde can be a fence line.
            let fenceCandidate = first == UInt8(ascii: "`") || first == UInt8(ascii: "~")
            let lineBytes = map.bytes[Int(map.utf8Start[start])..<Int(map.utf8Start[end])]
            if open >= 0 {
                if fenceCandidate, fences[Int(open)].isClosed(by: lineBytes) {
                    shape = .fenceClose
                    open = -1
                } else {
                    shape = .code
                }
            } else if fenceCandidate, let fence = Fence.opening(lineBytes) {
                fences.append(fence)
                open = Int32(fences.count - 1)
                shape = .fenceOpen
            } else {
                shape = blank ? .blank : .text
            }

            // The boundary at the start of this line.
            if start > 0 {
                fenceAt[start] = before
                if start == unitCount {
                    breaks[start] = .line
                } else if shape == .fenceClose || previous == .fenceOpen {
                    // Neither an empty block at the end of a chunk nor one at the start of the next.
                    breaks[start] = .forbidden
                } else if before >= 0 {
                    breaks[start] = .line
                } else if previous == .blank || previous == .fenceClose || shape == .fenceOpen
                    || kinds[start] == UInt8(ascii: "#")
                {
                    breaks[start] = .paragraph
                } else {
                    breaks[start] = .line
                }
            }
            // Boundaries inside the line, up to and including the one before its LF.
            if start < end {
                let inside: Int32 = shape == .fenceOpen ? -1 : (shape == .code || shape == .fenceClose ? before : open)
                let fenceLine = shape == .fenceOpen || shape == .fenceClose
                for boundary in (start + 1)...end {
                    fenceAt[boundary] = inside
                    if fenceLine {
                        breaks[boundary] = .forbidden
                    } else if boundary < end, isSpace(boundary - 1), !isSpace(boundary) {
                        breaks[boundary] = .word
                    } else {
                        breaks[boundary] = .cluster
                    }
                }
                if shape == .text { markAtoms(start, end) }
                if !fenceLine { markFenceRuns(start, end) }
            }
            previous = shape
            if end >= unitCount { break }
            start = end + 1
        }
        fenceAt[unitCount] = open
    }
}
