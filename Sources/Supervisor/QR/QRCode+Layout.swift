extension QRCode {
    /// Sets a function module (reserved from data and masks).
    package mutating func setFunction(row: Int, column: Int, _ dark: Bool) {
        modules[row][column] = dark
        reserved[row][column] = true
    }

    package mutating func drawFunctionPatterns() {
        let size = version.size
        for index in 0..<size {
            setFunction(row: 6, column: index, index % 2 == 0)
            setFunction(row: index, column: 6, index % 2 == 0)
        }
        for (row, column) in [(3, 3), (3, size - 4), (size - 4, 3)] { drawFinder(row: row, column: column) }
        let centres = version.alignmentCentres
        for row in centres {
            for column in centres {
                // The three corners with finders have none.
                let last = centres.count - 1
                if (row == centres[0] && column == centres[0]) || (row == centres[0] && column == centres[last])
                    || (row == centres[last] && column == centres[0])
                {
                    continue
                }
                for dy in -2...2 {
                    for dx in -2...2 { setFunction(row: row + dy, column: column + dx, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Reserved now, written once the mask is known.
        drawFormat()
        drawVersion()
    }

    /// A finder centred at (row, column), with its light separator, clipped at the edges.
    private mutating func drawFinder(row: Int, column: Int) {
        let size = version.size
        for dy in -4...4 {
            for dx in -4...4 {
                let (y, x) = (row + dy, column + dx)
                guard (0..<size).contains(y), (0..<size).contains(x) else { continue }
                let ring = max(abs(dx), abs(dy))
                setFunction(row: y, column: x, ring != 2 && ring != 4)
            }
        }
    }

    /// The 15 format bits (level M, the mask) in both copies, and the dark module.
    package mutating func drawFormat() {
        let size = version.size
        let bits = Self.formatBits(mask: mask)
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { setFunction(row: index, column: 8, bit(index)) }
        setFunction(row: 7, column: 8, bit(6))
        setFunction(row: 8, column: 8, bit(7))
        setFunction(row: 8, column: 7, bit(8))
        for index in 9..<15 { setFunction(row: 8, column: 14 - index, bit(index)) }
        for index in 0..<8 { setFunction(row: 8, column: size - 1 - index, bit(index)) }
        for index in 8..<15 { setFunction(row: size - 15 + index, column: 8, bit(index)) }
        setFunction(row: size - 8, column: 8, true)
    }

    /// Level M is 00; the 5 data bits get a BCH(15,5) remainder and the fixed 0x5412 mask.
    package static func formatBits(mask: Int) -> Int {
        let data = (0b00 << 3) | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return ((data << 10) | remainder) ^ 0x5412
    }

    /// Versions 7 and up carry their number, BCH(18,6) coded, beside two finders.
    private mutating func drawVersion() {
        guard version.number >= 7 else { return }
        var remainder = version.number
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = (version.number << 12) | remainder
        let size = version.size
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let (near, far) = (index / 3, size - 11 + index % 3)
            setFunction(row: near, column: far, dark)
            setFunction(row: far, column: near, dark)
        }
    }

    /// Codeword bits in two-column strips from the bottom right, up then down, skipping the
    /// vertical timing column; remainder modules stay light.
    package mutating func place(_ codewords: [UInt8]) {
        let size = version.size
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let row = upward ? size - 1 - step : step
                for column in [right, right - 1] where !reserved[row][column] && index < codewords.count * 8 {
                    modules[row][column] = (codewords[index >> 3] >> (7 - (index & 7))) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }
}
