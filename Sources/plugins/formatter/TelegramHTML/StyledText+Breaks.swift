extension StyledText {
    /// How good a break each boundary between units is (boundary k is before unit k), with the
    /// markdown splitter's classes: a paragraph where a blank line, a heading or a block starts or
    /// a block ends, a line after a LF, a word after spaces, forbidden inside inline code, a link
    /// or a URL. Every class depends only on the units around the boundary, never on the rest.
    func breakClasses() -> [BreakClass] {
        var breaks = [BreakClass](repeating: .cluster, count: units.count + 1)
        breaks[0] = .forbidden
        guard !units.isEmpty else { return breaks }
        for boundary in 1..<units.count {
            let before = units[boundary - 1], after = units[boundary]
            if after.glued {
                breaks[boundary] = .forbidden
            } else if before.block != after.block {
                breaks[boundary] = .paragraph
            } else if before.byte == 0x0A {
                let blank = boundary >= 2 && units[boundary - 2].byte == 0x0A
                breaks[boundary] = blank || after.startsHeading ? .paragraph : .line
            } else if before.isWhitespace, !after.isWhitespace {
                breaks[boundary] = .word
            }
        }
        breaks[units.count] = .line
        return breaks
    }

    /// Code points before each boundary: `offsets[k]` is the cost of units `0..<k`.
    /// `linkCost`: what a link costs besides its text, at its first unit (Slack writes the
    /// address in the text: `<url|text>`); nil where it costs nothing (Telegram's tag).
    func costOffsets(linkCost: ((HTMLTag) -> Int)? = nil, unitExtra: ((StyledText, Int) -> Int)? = nil) -> [Int] {
        var offsets = [0]
        offsets.reserveCapacity(units.count + 1)
        var total = 0
        var previousStyle: Int32 = -1
        for (index, unit) in units.enumerated() {
            total += unit.cost
            if let unitExtra { total += unitExtra(self, index) }
            if let linkCost { total += openedLinksCost(unit.style, after: previousStyle, linkCost) }
            previousStyle = unit.style
            offsets.append(total)
        }
        return offsets
    }

    /// What the links opening at a unit of style `style` cost, the unit before it being of style
    /// `previous` (-1 at a chunk's start, where every link of the unit opens).
    func openedLinksCost(_ style: Int32, after previous: Int32, _ linkCost: (HTMLTag) -> Int) -> Int {
        guard style != previous else { return 0 }
        let before = previous >= 0 ? styles[Int(previous)] : []
        var total = 0
        for tag in styles[Int(style)] where tag.name == "a" && !before.contains(tag) { total += linkCost(tag) }
        return total
    }
}
