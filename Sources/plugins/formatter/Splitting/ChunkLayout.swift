/// A document prepared for splitting: for every boundary between units, how good a break it is
/// and which fence, if any, is open there. Everything is computed from the text before the
/// boundary and the line it lies on, so a cut decision never depends on text further on than the
/// end of that line (the live view relies on this to finalize chunks early).
struct ChunkLayout {
    let map: GraphemeMap
    /// Break class of boundary k (before unit k), `map.count + 1` entries.
    let breaks: [BreakClass]
    /// Index into `fences` of the fence open at boundary k, or -1.
    let fenceAt: [Int32]
    let fences: [Fence]
    /// UTF-16 cost of reopening and of closing each fence in `fences`.
    private let reopenCosts: [Int]
    private let closeCosts: [Int]

    init(_ text: String) {
        map = GraphemeMap(text)
        let unitCount = map.count
        var breaks = [BreakClass](repeating: .cluster, count: unitCount + 1)
        var fenceAt = [Int32](repeating: -1, count: unitCount + 1)
        var fences: [Fence] = []
        let map = self.map
        map.kinds.withUnsafeBufferPointer { kinds in
            breaks.withUnsafeMutableBufferPointer { breaks in
                fenceAt.withUnsafeMutableBufferPointer { fenceAt in
                    var marker = BreakMarker(map: map, kinds: kinds, breaks: breaks, fenceAt: fenceAt)
                    marker.layOutLines()
                    fences = marker.fences
                }
            }
        }
        breaks[0] = .forbidden
        for boundary in map.clusterInterior { breaks[boundary] = .forbidden }
        self.breaks = breaks
        self.fenceAt = fenceAt
        self.fences = fences
        reopenCosts = fences.map { $0.reopeningLine.utf16.count + 1 }
        closeCosts = fences.map { $0.closingLine.utf16.count + 1 }
    }

    func fence(at boundary: Int) -> Fence? {
        let fenceIndex = fenceAt[boundary]
        return fenceIndex < 0 ? nil : fences[Int(fenceIndex)]
    }

    /// UTF-16 units a chunk starting at `boundary` spends on reopening the fence open there.
    @inline(__always)
    func reopenCost(at boundary: Int) -> Int {
        let fenceIndex = fenceAt[boundary]
        return fenceIndex < 0 ? 0 : reopenCosts[Int(fenceIndex)]
    }

    /// UTF-16 units a chunk ending at `boundary` spends on closing the fence open there.
    @inline(__always)
    func closeCost(at boundary: Int) -> Int {
        let fenceIndex = fenceAt[boundary]
        return fenceIndex < 0 ? 0 : closeCosts[Int(fenceIndex)]
    }
}
