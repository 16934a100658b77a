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
    func costOffsets() -> [Int] {
        var offsets = [0]
        offsets.reserveCapacity(units.count + 1)
        var total = 0
        for unit in units {
            total += unit.cost
            offsets.append(total)
        }
        return offsets
    }
}
