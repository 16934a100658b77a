/// The furthest fitting boundary of each break class seen so far, while a splitter walks a chunk
/// forward (later boundaries overwrite earlier ones): where the chunk should end.
struct BreakCandidates {
    private var cluster = -1
    private var word = -1
    private var line = -1
    private var paragraph = -1
    private var forbidden = -1

    /// `boundary` fits, and breaking there is of class `kind`.
    mutating func fits(_ boundary: Int, _ kind: BreakClass) {
        switch kind {
        case .forbidden: forbidden = boundary
        case .cluster: cluster = boundary
        case .word: word = boundary
        case .line: line = boundary
        case .paragraph: paragraph = boundary
        }
    }

    /// The furthest break of the best class that leaves the chunk at least half full
    /// (`halfFull`), else the best class there is, else after `start` (a single unit longer than
    /// the budget cannot happen above the splitters' minimum limit; still move on).
    func cut(after start: Int, halfFull: (Int) -> Bool) -> Int {
        for candidate in [paragraph, line, word] where candidate > 0 && halfFull(candidate) { return candidate }
        for candidate in [paragraph, line, word, cluster, forbidden] where candidate > 0 { return candidate }
        return start + 1
    }
}
