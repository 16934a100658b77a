extension String {
    /// The text cut to at most `limit` code points by replacing its middle with "…", so that both
    /// ends of a long command or path stay readable. Code points, not characters: a character
    /// can hold any number of them (combining marks), and the platforms count them.
    func elidingMiddle(to limit: Int) -> String {
        guard limit >= 3 else { return count > limit ? String(prefix(limit)) : self }
        // Cheap exit before counting a long text.
        if utf8.count <= limit || unicodeScalars.count <= limit { return self }
        let keep = limit - 1
        return Self.whole(self, within: (keep + 1) / 2) + "…" + String(Self.whole(reversed(), within: keep / 2).reversed())
    }

    /// The whole characters of `characters` from its start that hold at most `budget` code points.
    private static func whole<Characters: Sequence<Character>>(_ characters: Characters, within budget: Int) -> String {
        var out = ""
        var used = 0
        for character in characters {
            used += character.unicodeScalars.count
            if used > budget { break }
            out.append(character)
        }
        return out
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
