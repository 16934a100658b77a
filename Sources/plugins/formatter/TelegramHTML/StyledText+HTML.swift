extension StyledText {
    /// Units `range` as Telegram HTML, without the whitespace at either end (Telegram trims it and
    /// would count a message of only whitespace as empty): every tag open at a unit is opened
    /// before it and closed by the end, text escaped.
    ///
    /// A LF that ends a code block or quote is written after the block's closing tag, so a block
    /// does not end in an empty line.
    func html(_ range: Range<Int>) -> String {
        let (from, to) = trimmed(range)
        var out = ""
        var open: [HTMLTag] = []
        for index in from..<to {
            var tags = self.tags(index)
            if units[index].character == "\n" {
                let next = index + 1 < to ? self.tags(index + 1) : []
                tags = Array(tags.prefix(Self.commonPrefixLength(tags, next)))
            }
            if tags != open {
                let common = Self.commonPrefixLength(open, tags)
                for tag in open[common...].reversed() { out += tag.closing }
                for tag in tags[common...] { out += tag.opening }
                open = tags
            }
            out.appendHTMLEscaped(units[index].character)
        }
        for tag in open.reversed() { out += tag.closing }
        return out
    }

    /// `range` without the whitespace units at its ends.
    func trimmed(_ range: Range<Int>) -> (from: Int, to: Int) {
        var from = range.lowerBound, to = range.upperBound
        while from < to, units[from].isWhitespace { from += 1 }
        while to > from, units[to - 1].isWhitespace { to -= 1 }
        return (from, to)
    }

    /// Characters Telegram counts for `html(range)`.
    func visibleLength(_ range: Range<Int>) -> Int {
        let (from, to) = trimmed(range)
        return units[from..<to].reduce(0) { $0 + $1.cost }
    }

    /// True when the text of `range` starts inside a code block or quote, which a chunk label
    /// must not share a line with.
    func startsWithBlock(_ range: Range<Int>) -> Bool {
        let from = trimmed(range).from
        return from < range.upperBound && units[from].block != 0
    }

    private static func commonPrefixLength(_ a: [HTMLTag], _ b: [HTMLTag]) -> Int {
        var count = 0
        while count < a.count, count < b.count, a[count] == b[count] { count += 1 }
        return count
    }
}
