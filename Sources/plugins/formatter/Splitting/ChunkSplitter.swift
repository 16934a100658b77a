/// Splits markdown into chat messages of at most `limit` UTF-16 code units.
///
/// Breaks go at paragraph, then line, then word boundaries, never inside a cluster, a link or
/// inline code. A chunk that ends inside a code fence gets a closing fence line (`"\n" + marker`)
/// and the next chunk starts with the fence reopened (`marker + info + "\n"`). When there is more
/// than one chunk, each starts with `[i/n]` followed by a space, or by a LF when the chunk starts
/// with a block (a fence, a heading, a list or a quote) that must stay at the start of a line.
/// Those three additions are all the splitter ever adds, and all of them count against the limit.
/// The text should close its fences (the renderer does): a fence left open at the very end stays
/// open in the last chunk.
package struct ChunkSplitter {
    /// Requests with a smaller limit are refused: below this a reopened fence, a closing fence
    /// and a chunk number could leave no room for text.
    package static let minimumLimit = 100

    let limit: Int

    package init(limit: Int) {
        self.limit = limit
    }

    /// Splits the whole of `text`. Numbers the chunks when there is more than one and `numbered`.
    package func split(_ text: String, numbered: Bool = true) -> [String] {
        // Within the limit it is one chunk whatever the layout: skip building one.
        if text.utf16.count <= limit { return text.isEmpty ? [] : [text] }
        let layout = ChunkLayout(text)
        if !numbered { return pieces(layout, reserve: 0, final: true).pieces.map { chunk(layout, $0, label: nil) } }
        // The label's width depends on the count, which depends on the room the label leaves.
        var digits = 1
        while true {
            let found = pieces(layout, reserve: ChunkNumbering.reserve(digits: digits), final: true).pieces
            if found.count < ChunkNumbering.capacity(digits: digits) || digits >= 6 {
                let total = found.count
                return found.enumerated().map { chunk(layout, $1, label: ChunkNumbering(index: $0 + 1, total: total)) }
            }
            digits += 1
        }
    }

    /// The chunks of `text` that no continuation of it can change: those whose whole window of
    /// candidate breaks lies inside `text`. Returns them unnumbered, with the UTF-8 offset where
    /// the rest starts and the fence open there. `text` must end at a line boundary.
    package func settledChunks(_ text: String) -> (chunks: [String], restUTF8: Int, fence: Fence?) {
        let layout = ChunkLayout(text)
        let (found, end) = pieces(layout, reserve: 0, final: false)
        return (found.map { chunk(layout, $0, label: nil) }, Int(layout.map.utf8Start[end]), layout.fence(at: end))
    }

    /// Greedy cuts from the start. When not `final`, stops at the first chunk whose cut could
    /// still depend on text after the end.
    private func pieces(_ layout: ChunkLayout, reserve: Int, final: Bool) -> (pieces: [Piece], end: Int) {
        var found: [Piece] = []
        var boundary = 0
        let unitCount = layout.map.count
        while boundary < unitCount {
            guard let next = cut(layout, from: boundary, reserve: reserve, final: final) else { break }
            found.append(Piece(from: boundary, to: next))
            boundary = next
        }
        return (found, boundary)
    }

    /// Where the chunk starting at boundary `start` ends: the furthest break of the best class that
    /// leaves the chunk at least half full, else the best class there is.
    private func cut(_ layout: ChunkLayout, from start: Int, reserve: Int, final: Bool) -> Int? {
        let u16 = layout.map.utf16Start
        let breaks = layout.breaks
        let unitCount = layout.map.count
        let start16 = Int(u16[start])
        let budget = limit - reserve - layout.reopenCost(at: start)
        if Int(u16[unitCount]) - start16 <= budget { return final ? unitCount : nil }
        var best = BreakCandidates()
        var boundary = start + 1
        while boundary <= unitCount {
            let length = Int(u16[boundary]) - start16
            if length > budget { break }
            if length + layout.closeCost(at: boundary) <= budget { best.fits(boundary, breaks[boundary]) }
            boundary += 1
        }
        return best.cut(after: start) { Int(u16[$0]) - start16 >= budget / 2 }
    }

    private func chunk(_ layout: ChunkLayout, _ piece: Piece, label: ChunkNumbering?) -> String {
        var body = ""
        if let open = layout.fence(at: piece.from) {
            body += open.reopeningLine
            body += "\n"
        }
        body += layout.map.text(piece.from, piece.to)
        // The last chunk ends where the text ends: a fence the text leaves open stays open.
        if piece.to < layout.map.count, let open = layout.fence(at: piece.to) {
            body += "\n"
            body += open.closingLine
        }
        guard let label else { return body }
        return label.prefix(for: body) + body
    }
}
