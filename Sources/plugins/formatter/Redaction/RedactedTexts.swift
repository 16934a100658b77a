import Synchronization

/// The redaction of texts that grow at the end, kept between requests so that a live view's next
/// redaction scans only what the run added: every live view redacts its run's answer so far, a
/// few times over, and the secret scan was a third of a view's work on a long answer.
///
/// One view redacts several texts of one run that start alike and end otherwise: the answer's
/// settled lines (ending at a blank line), the settled document (the same, trimmed), and the
/// current document (whose last paragraph, still growing, ends in a LF added after it). So a
/// text reuses the lines it shares with a kept one, whichever is longer, not only a kept text it
/// starts with: keeping only prefixes, each of these evicted the others, and half of every view
/// was scanned again.
///
/// A memo, never a source of truth: a text comes out the same with or without it. That holds
/// because every rule stays within one line except a private key block, which runs to its END
/// line or the end of the text (`Redactor`): so a text's complete lines, redacted, are the start
/// of the redaction of any text that goes on from them, and the rest can be redacted apart. What
/// is kept never holds the start of a key block, and a part that does is redacted with the rest
/// of its text. Bounded by entries and by bytes; the least recently used goes first.
final class RedactedTexts: Sendable {
    static let maxEntries = 128
    static let maxBytes = 8 << 20
    /// Shorter texts are redacted whole: the scan costs less than the lookup and the copy.
    static let minimumBytes = 1024

    private struct State {
        var kept = KeptValues<(id: UInt64, lines: RedactedLines)>(maxEntries: maxEntries, maxCost: maxBytes)
        var lastID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// `text` redacted by `whole`, reusing the redaction of the most lines it shares with a kept
    /// text.
    func redact(_ text: String, whole: (Substring) -> String) -> String {
        let utf8 = text.utf8
        guard utf8.count >= Self.minimumBytes, let lastLF = utf8.lastIndex(of: 0x0A) else { return whole(text[...]) }
        let known = closest(to: text)
        let reused = known.map { $0.lines.prefix(lines: $0.shared) } ?? (rawBytes: 0, redacted: "")
        let start = utf8.index(utf8.startIndex, offsetBy: reused.rawBytes)
        let lineEnd = utf8.index(after: lastLF)
        guard start < lineEnd else { return String(reused.redacted) + whole(text[start...]) }
        let lines = text[start..<lineEnd]
        guard !Self.startsKeyBlock(lines) else { return String(reused.redacted) + whole(text[start...]) }
        let redactedLines = String(reused.redacted) + whole(lines)
        if let kept = RedactedLines(keeping: known?.shared ?? 0, of: known?.lines, raw: String(text[..<lineEnd]), redacted: redactedLines) {
            // The text this one went on from is superseded when all it differs in is its last
            // line (it grew, or its growing paragraph was closed for a view); one that merely
            // starts the same (another answer) stays.
            let supersedes = known.flatMap { $0.shared >= $0.lines.lineCount - 1 ? $0.id : nil }
            remember(kept, replacing: supersedes)
        }
        return lineEnd == utf8.endIndex ? redactedLines : redactedLines + whole(text[lineEnd...])
    }

    /// How many entries are kept, for tests.
    var count: Int { state.withLock { $0.kept.entries.count } }

    /// True when `part` holds the start of a private key block, which may run past it.
    static func startsKeyBlock(_ part: Substring) -> Bool {
        ByteSearch.contains(part, keyBlockMarker)
    }

    private static let keyBlockMarker = Array("-----BEGIN ".utf8)

    /// The kept lines `text` shares the most of, with how many, or nil when it shares none.
    private func closest(to text: String) -> (id: UInt64, lines: RedactedLines, shared: Int)? {
        let lead = TextLead(text)
        return state.withLock { state in
            var best: (index: Int, shared: Int)?
            // By index, not by element: an entry is read only when its lead may match.
            for index in state.kept.entries.indices where state.kept.entries[index].value.lines.lead.mayStart(lead) {
                let shared = state.kept.entries[index].value.lines.sharedLines(with: text)
                if shared > (best?.shared ?? 0) { best = (index, shared) }
            }
            guard let best else { return nil }
            let entry = state.kept.use(best.index)
            return (entry.id, entry.lines, best.shared)
        }
    }

    private func remember(_ lines: RedactedLines, replacing superseded: UInt64?) {
        state.withLock { state in
            if let superseded { state.kept.removeAll { $0.id == superseded } }
            state.lastID += 1
            state.kept.keep((state.lastID, lines), cost: lines.cost)
        }
    }
}
