/// Complete lines of some text, with no private key block's start, and what they redact to. Every
/// rule of `Redactor` but a key block stays within one line, so redacting keeps each line a line:
/// the n-th line of `raw` redacts to the n-th line of `redacted`, and any text that starts with
/// some of these lines can take their redaction as it is.
struct RedactedLines: Sendable {
    let raw: String
    let redacted: String
    /// The UTF-8 offset just past each LF, in `raw` and in `redacted`: one per line.
    let rawEnds: [Int]
    let redactedEnds: [Int]
    /// The first line's lead: a text that does not start with it shares no line.
    let lead: TextLead

    /// The first `lines` lines of `earlier` (none without it), then the lines of `raw` after
    /// them, which redact to the lines of `redacted` after `earlier`'s first `lines`. Nil when
    /// the two do not have as many lines each, which a redaction that kept every line a line
    /// would give.
    init?(keeping lines: Int, of earlier: RedactedLines?, raw: String, redacted: String) {
        let kept = earlier.map { min(lines, $0.lineCount) } ?? 0
        let rawStart = kept == 0 ? 0 : earlier?.rawEnds[kept - 1] ?? 0
        let redactedStart = kept == 0 ? 0 : earlier?.redactedEnds[kept - 1] ?? 0
        var rawEnds = Array(earlier?.rawEnds.prefix(kept) ?? [])
        var redactedEnds = Array(earlier?.redactedEnds.prefix(kept) ?? [])
        Self.appendLineEnds(of: raw, from: rawStart, to: &rawEnds)
        Self.appendLineEnds(of: redacted, from: redactedStart, to: &redactedEnds)
        guard rawEnds.count == redactedEnds.count, rawEnds.last == raw.utf8.count, redactedEnds.last == redacted.utf8.count else {
            return nil
        }
        (self.raw, self.redacted, self.rawEnds, self.redactedEnds) = (raw, redacted, rawEnds, redactedEnds)
        lead = TextLead(raw, limit: rawEnds[0])
    }

    var lineCount: Int { rawEnds.count }
    /// What it costs to keep: both texts' bytes.
    var cost: Int { raw.utf8.count + redacted.utf8.count }

    /// How many of these lines `text` starts with, each whole, LF included.
    func sharedLines(with text: String) -> Int {
        let common = ByteSearch.commonPrefixLength(raw, text)
        // The number of line ends at or before `common`.
        var low = 0
        var high = rawEnds.count
        while low < high {
            let middle = (low + high) / 2
            if rawEnds[middle] <= common { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first `lines` lines: how many bytes of raw text they are, and their redaction.
    func prefix(lines: Int) -> (rawBytes: Int, redacted: Substring) {
        guard lines > 0 else { return (0, "") }
        let end = redacted.utf8.index(redacted.utf8.startIndex, offsetBy: redactedEnds[lines - 1])
        return (rawEnds[lines - 1], redacted[..<end])
    }

    private static func appendLineEnds(of text: String, from start: Int, to ends: inout [Int]) {
        var offset = start
        for byte in text.utf8.dropFirst(start) {
            offset += 1
            if byte == 0x0A { ends.append(offset) }
        }
    }
}
