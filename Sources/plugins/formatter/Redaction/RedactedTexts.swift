/// The redaction of texts that grow at the end, kept between requests so that a live view's next
/// redaction scans only what the run added: every live view redacts its run's answer so far, a
/// few times over, and the secret scan was a third of a view's work on a long answer.
///
/// A memo, never a source of truth: a text comes out the same with or without it. That holds
/// because every rule stays within one line except a private key block, which runs to its END
/// line or the end of the text (`Redactor`): so a text's complete lines, redacted, are the start
/// of the redaction of any text that goes on from them, and the rest can be redacted apart. What
/// is kept never holds the start of a key block, and a part that does is redacted with the rest
/// of its text. Kept in a `PrefixMemo`, bounded by entries and by bytes.
final class RedactedTexts: Sendable {
    static let maxEntries = 128
    static let maxBytes = 8 << 20
    /// Shorter texts are redacted whole: the scan costs less than the lookup and the copy.
    static let minimumBytes = 1024

    /// Complete lines of some text, with no key block's start, and their redaction.
    private let memo = PrefixMemo<String>(maxEntries: maxEntries, maxCost: maxBytes)

    /// `text` redacted by `whole`, reusing the redaction of the longest kept text it starts with.
    func redact(_ text: String, whole: (Substring) -> String) -> String {
        let utf8 = text.utf8
        guard utf8.count >= Self.minimumBytes, let lastLF = utf8.lastIndex(of: 0x0A) else { return whole(text[...]) }
        let known = memo.longest(prefixOf: text)
        let start = utf8.index(utf8.startIndex, offsetBy: known?.text.utf8.count ?? 0)
        let lineEnd = utf8.index(after: lastLF)
        guard start < lineEnd else { return (known?.value ?? "") + whole(text[start...]) }
        let lines = text[start..<lineEnd]
        guard !Self.startsKeyBlock(lines) else { return (known?.value ?? "") + whole(text[start...]) }
        let redactedLines = (known?.value ?? "") + whole(lines)
        let raw = String(text[..<lineEnd])
        memo.remember(raw, redactedLines, cost: raw.utf8.count + redactedLines.utf8.count)
        return lineEnd == utf8.endIndex ? redactedLines : redactedLines + whole(text[lineEnd...])
    }

    /// How many entries are kept, for tests.
    var count: Int { memo.count }

    /// True when `part` holds the start of a private key block, which may run past it.
    static func startsKeyBlock(_ part: Substring) -> Bool {
        ByteSearch.contains(part, keyBlockMarker)
    }

    private static let keyBlockMarker = Array("-----BEGIN ".utf8)
}
