/// Splits styled text into Telegram messages of at most `limit` visible characters (code points
/// after entity parsing, which is what Telegram counts), the way `ChunkSplitter` splits markdown:
/// breaks at paragraphs, then lines, then words, the chunk at least half full when it can be,
/// and `[i/n]` labels in front when there is more than one.
///
/// Unlike markdown, tags cost nothing: a chunk ending inside `<pre><code class=…>` or `<b>`
/// closes them and the next reopens them for free, since the HTML of a chunk is written from
/// the styles of its own units. A chunk never starts with whitespace (but a code line's indent)
/// and is never empty.
struct HTMLSplitter {
    let limit: Int
    /// How a chunk's units are written: Telegram HTML unless a dialect says otherwise (Slack's
    /// mrkdwn splits the same styled text).
    var write: (StyledText, Range<Int>) -> String = { $0.html($1) }
    /// What a link costs besides its text (`StyledText.costOffsets`): nothing in Telegram's HTML.
    var linkCost: ((HTMLTag) -> Int)?
    /// What a unit costs besides its characters: Slack counts `&amp;` as five; Telegram counts
    /// the text after entity parsing, so nothing.
    var unitExtra: ((StyledText, Int) -> Int)?

    /// The chunks of the text from unit `start` on. Numbered when there is more than one and
    /// `numbered`.
    func split(_ text: StyledText, from start: Int = 0, numbered: Bool) -> [String] {
        let whole = start..<text.units.count
        if text.visibleLength(whole) + linkCosts(text, whole) + extraCosts(text, whole) <= limit {
            let html = write(text, whole)
            return html.isEmpty ? [] : [html]
        }
        let breaks = text.breakClasses(), offsets = text.costOffsets(linkCost: linkCost, unitExtra: unitExtra)
        if !numbered {
            return pieces(text, breaks, offsets, from: start, reserve: 0, final: true).pieces.map { write(text, $0) }
        }
        var digits = 1
        while true {
            let found = pieces(text, breaks, offsets, from: start, reserve: ChunkNumbering.reserve(digits: digits), final: true).pieces
            if found.count < ChunkNumbering.capacity(digits: digits) || digits >= 6 {
                if found.count == 1 { return [write(text, found[0])] }
                return found.enumerated().map { index, piece in
                    "[\(index + 1)/\(found.count)]" + (text.startsWithBlock(piece) ? "\n" : " ") + write(text, piece)
                }
            }
            digits += 1
        }
    }

    /// The chunks that no continuation of `text` can change (see `ChunkSplitter.settledChunks`),
    /// unnumbered, and the unit where the rest starts. `text` must end at a line boundary.
    func settledChunks(_ text: StyledText) -> (chunks: [String], rest: Int) {
        // While the text from its first visible unit fits, nothing can settle (what `pieces`
        // finds then too), and its break classes need not be worked out: a web page's whole
        // answer is one message, so this is every one of its live views.
        let first = text.firstWritten(from: 0, to: text.units.count)
        let rest = first..<text.units.count
        if text.units[rest].reduce(0, { $0 + $1.cost }) + linkCosts(text, rest) + extraCosts(text, rest) <= limit { return ([], first) }
        let (found, end) = pieces(
            text, text.breakClasses(), text.costOffsets(linkCost: linkCost, unitExtra: unitExtra), from: 0, reserve: 0, final: false)
        return (found.map { write(text, $0) }, end)
    }

    /// The units' extra costs in `range`: 0 without `unitExtra`.
    private func extraCosts(_ text: StyledText, _ range: Range<Int>) -> Int {
        guard let unitExtra else { return 0 }
        return range.reduce(0) { $0 + unitExtra(text, $1) }
    }

    /// The links' own costs in `range`: 0 without `linkCost`, and without a link.
    private func linkCosts(_ text: StyledText, _ range: Range<Int>) -> Int {
        guard let linkCost else { return 0 }
        var total = 0
        var previous: Int32 = -1
        for index in range {
            let style = text.units[index].style
            total += text.openedLinksCost(style, after: previous, linkCost)
            previous = style
        }
        return total
    }

    /// Greedy cuts from `start`, each chunk starting at its first non-blank unit. When not
    /// `final`, stops at the first chunk whose cut could still depend on units after the end.
    /// Internal so that tests hold `settledChunks`' short cut to it.
    func pieces(
        _ text: StyledText, _ breaks: [BreakClass], _ offsets: [Int], from start: Int, reserve: Int, final: Bool
    ) -> (pieces: [Range<Int>], end: Int) {
        var found: [Range<Int>] = []
        var boundary = start
        let count = text.units.count
        while true {
            boundary = text.firstWritten(from: boundary, to: count)
            guard boundary < count, let next = cut(breaks, offsets, from: boundary, budget: limit - reserve, final: final) else { break }
            found.append(boundary..<next)
            boundary = next
        }
        return (found, boundary)
    }

    /// Where the chunk starting at `start` ends: the furthest break of the best class that leaves
    /// the chunk at least half full, else the best class there is. Lengths include whitespace the
    /// chunk will be trimmed of, so they never fall short.
    private func cut(_ breaks: [BreakClass], _ offsets: [Int], from start: Int, budget: Int, final: Bool) -> Int? {
        let count = offsets.count - 1
        if offsets[count] - offsets[start] <= budget { return final ? count : nil }
        var best = BreakCandidates()
        var boundary = start + 1
        while boundary <= count, offsets[boundary] - offsets[start] <= budget {
            best.fits(boundary, breaks[boundary])
            boundary += 1
        }
        return best.cut(after: start) { offsets[$0] - offsets[start] >= budget / 2 }
    }
}
