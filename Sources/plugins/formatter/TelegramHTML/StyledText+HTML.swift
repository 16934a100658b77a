extension StyledText {
    /// Units `range` as Telegram HTML, without the whitespace at either end (Telegram trims it and
    /// would count a message of only whitespace as empty): every tag open at a unit is opened
    /// before it and closed by the end, text escaped.
    ///
    /// A LF that ends a code block or quote is written after the block's closing tag, so a block
    /// does not end in an empty line.
    func html(_ range: Range<Int>) -> String {
        let (from, to) = trimmed(range)
        // Written as UTF-8 and made a String once, and a unit's tags looked at only when its
        // style differs from the one before: a live view writes its whole answer every time.
        var out: [UInt8] = []
        out.reserveCapacity(to - from + 64)
        var open: [HTMLTag] = []
        // The style `open` is, or nil when it was cut for a LF.
        var openStyle: Int32?
        func switchTo(_ tags: [HTMLTag]) {
            let common = Self.commonPrefixLength(open, tags)
            for tag in open[common...].reversed() { out.append(contentsOf: tag.closing.utf8) }
            for tag in tags[common...] { out.append(contentsOf: tag.opening.utf8) }
            open = tags
        }
        for index in from..<to {
            let unit = units[index]
            if unit.byte == 0x0A {
                let tags = self.tags(index)
                let next = index + 1 < to ? self.tags(index + 1) : []
                let kept = Array(tags.prefix(Self.commonPrefixLength(tags, next)))
                if kept != open { switchTo(kept) }
                openStyle = kept.count == tags.count ? unit.style : nil
            } else if unit.style != openStyle {
                let tags = styles[Int(unit.style)]
                if tags != open { switchTo(tags) }
                openStyle = unit.style
            }
            appendEscaped(unit, to: &out)
        }
        for tag in open.reversed() { out.append(contentsOf: tag.closing.utf8) }
        return String(decoding: out, as: UTF8.self)
    }

    /// One unit's character, escaped as `appendHTMLEscaped` does: in a cluster too, by code
    /// point (`<` followed by a combining mark is one unit, and an HTML parser reads its `<`).
    /// An ASCII byte in UTF-8 is always its own code point.
    private func appendEscaped(_ unit: Unit, to out: inout [UInt8]) {
        if unit.byte == 0 {
            let start = Int(unit.clusterStart)
            for byte in clusters[start..<start + Int(unit.clusterLength)] {
                if byte < 0x80, let entity = String.htmlEntity(byte) { out.append(contentsOf: entity.utf8) } else { out.append(byte) }
            }
        } else if let entity = String.htmlEntity(unit.byte) {
            out.append(contentsOf: entity.utf8)
        } else {
            out.append(unit.byte)
        }
    }

    /// `range` without the whitespace units at its ends (`firstWritten`).
    func trimmed(_ range: Range<Int>) -> (from: Int, to: Int) {
        let from = firstWritten(from: range.lowerBound, to: range.upperBound)
        var to = range.upperBound
        while to > from, units[to - 1].isWhitespace { to -= 1 }
        return (from, to)
    }

    /// The first unit a chunk starting at `start` writes: its first visible one, or, in a code
    /// block, the indentation of that unit's line, so that a block continued in the next message
    /// keeps its first line's indent (Python, YAML and makefiles mean it).
    func firstWritten(from start: Int, to end: Int) -> Int {
        var from = start
        while from < end, units[from].isWhitespace { from += 1 }
        guard from < end, styles[Int(units[from].style)].contains(where: { $0.name == "pre" }) else { return from }
        while from > start, units[from - 1].byte == 0x20 || units[from - 1].byte == 0x09 { from -= 1 }
        return from
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
