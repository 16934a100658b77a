/// Fitting text into a platform's length limits. Lengths are counted in UTF-16 units, which is never
/// less than the code points Discord and Slack count, so a fitted text is always accepted.
public enum TextFit {
    public static func length(_ text: String) -> Int { text.utf16.count }

    /// A button's or an option's label: trimmed, "…" when empty, at most `max` units. A label
    /// is the model's text (`ask_user` options), and one platform refuses an over-long one with
    /// the whole message (Slack's `invalid_blocks`, Discord's 400): its length is measured in
    /// UTF-16 units, never fewer than the platform's own count, however many code points a
    /// character holds.
    public static func label(_ text: String, max: Int) -> String {
        let trimmed = text.trimmed()
        return clamp(trimmed.isEmpty ? "…" : trimmed, to: max)
    }

    /// `text` cut to at most `limit` units, ending in "…" when cut; never splits a character.
    public static func clamp(_ text: String, to limit: Int) -> String {
        guard length(text) > limit else { return text }
        var out = ""
        var used = 0
        for ch in text {
            let width = ch.utf16.count
            if used + width > limit - 1 { break }
            out.append(ch)
            used += width
        }
        return out + "…"
    }

    /// `text` in pieces of at most `limit` units, cut after a newline where one is near the end of
    /// a piece, else between characters. Code fences are the formatter's business; this is for
    /// plain notices and echoes.
    public static func split(_ text: String, limit: Int) -> [String] {
        guard length(text) > limit else { return text.isEmpty ? [] : [text] }
        var pieces: [String] = []
        var rest = Substring(text)
        while length(String(rest)) > limit {
            var end = rest.startIndex
            var used = 0
            var lastNewline: String.Index?
            while end < rest.endIndex {
                let width = rest[end].utf16.count
                if used + width > limit { break }
                used += width
                if rest[end] == "\n" { lastNewline = end }
                end = rest.index(after: end)
            }
            if let nl = lastNewline, rest.distance(from: rest.startIndex, to: nl) > limit / 2 {
                end = rest.index(after: nl)
            }
            if end == rest.startIndex { end = rest.index(after: end) }
            pieces.append(String(rest[..<end]))
            rest = rest[end...]
        }
        if !rest.isEmpty { pieces.append(String(rest)) }
        return pieces
    }
}
