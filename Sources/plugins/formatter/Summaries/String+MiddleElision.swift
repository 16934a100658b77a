extension String {
    /// The text cut to at most `limit` characters by replacing its middle with "…", so that both
    /// ends of a long command or path stay readable.
    func elidingMiddle(to limit: Int) -> String {
        guard limit >= 3 else { return count > limit ? String(prefix(limit)) : self }
        // Cheap exit before counting graphemes of a long text.
        if utf8.count <= limit { return self }
        let length = count
        guard length > limit else { return self }
        let keep = limit - 1
        return String(prefix((keep + 1) / 2)) + "…" + String(suffix(keep / 2))
    }

    /// The text on one line: line breaks shown as " ↵ ", tabs as spaces, ends trimmed.
    var singleLine: String {
        var text = self
        if text.utf8.contains(0x0A) || text.utf8.contains(0x09) || text.utf8.contains(0x0D) {
            // CR LF is one Character, which a split on "\n" does not see: split on any line break.
            text = text.split(whereSeparator: \.isNewline)
                .map { $0.trimmingSpaces() }
                .filter { !$0.isEmpty }
                .joined(separator: " ↵ ")
                .replacing("\t", with: " ")
        }
        return text.trimmingSpaces()
    }

    /// The text on one line with every run of whitespace collapsed to one space.
    var collapsedWhitespace: String {
        split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
