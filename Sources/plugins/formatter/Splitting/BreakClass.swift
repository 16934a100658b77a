/// How good a place is for ending a chunk, best last. The splitter prefers the best class that
/// still leaves the chunk at least half full.
enum BreakClass: Int8, Comparable {
    /// Inside a link, inline code, a fence line or an oversized cluster: only when nothing else fits.
    case forbidden = -1
    /// Between two clusters of a word.
    case cluster = 0
    /// After the spaces that follow a word.
    case word = 1
    /// At the start of a line.
    case line = 2
    /// At the start of a paragraph, a heading or a fenced block, or right after a block.
    case paragraph = 3

    static func < (a: BreakClass, b: BreakClass) -> Bool { a.rawValue < b.rawValue }
}
