extension QRCode {
    /// Whether mask `mask` flips the module at (row, column).
    package static func flips(_ mask: Int, row: Int, column: Int) -> Bool {
        switch mask {
        case 0: return (row + column) % 2 == 0
        case 1: return row % 2 == 0
        case 2: return column % 3 == 0
        case 3: return (row + column) % 3 == 0
        case 4: return (row / 2 + column / 3) % 2 == 0
        case 5: return (row * column) % 2 + (row * column) % 3 == 0
        case 6: return ((row * column) % 2 + (row * column) % 3) % 2 == 0
        default: return ((row + column) % 2 + (row * column) % 3) % 2 == 0
        }
    }

    /// The modules with `mask` applied to data, and the format bits for it.
    package func masked(_ mask: Int) -> [[Bool]] {
        var out = modules
        for row in 0..<size {
            for column in 0..<size where !reserved[row][column] && Self.flips(mask, row: row, column: column) {
                out[row][column].toggle()
            }
        }
        let bits = Self.formatBits(mask: mask)
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { out[index][8] = bit(index) }
        out[7][8] = bit(6)
        out[8][8] = bit(7)
        out[8][7] = bit(8)
        for index in 9..<15 { out[8][14 - index] = bit(index) }
        for index in 0..<8 { out[8][size - 1 - index] = bit(index) }
        for index in 8..<15 { out[size - 15 + index][8] = bit(index) }
        return out
    }

    /// The standard's penalty: long runs, 2×2 blocks, finder-like patterns, and imbalance of dark
    /// and light.
    package static func penalty(_ grid: [[Bool]]) -> Int {
        let size = grid.count
        var score = 0
        let columns = (0..<size).map { column in grid.map { $0[column] } }
        for line in grid + columns {
            var run = 1
            for index in 1..<size {
                if line[index] == line[index - 1] {
                    run += 1
                } else {
                    if run >= 5 { score += run - 2 }
                    run = 1
                }
            }
            if run >= 5 { score += run - 2 }
            // 1011101 with four light modules on either side.
            let pattern: [Bool] = [true, false, true, true, true, false, true]
            let light = [Bool](repeating: false, count: 4)
            for start in 0...(size - 11) {
                let window = Array(line[start..<start + 11])
                if window == pattern + light || window == light + pattern { score += 40 }
            }
        }
        for row in 0..<(size - 1) {
            for column in 0..<(size - 1) {
                let dark = grid[row][column]
                if grid[row][column + 1] == dark && grid[row + 1][column] == dark && grid[row + 1][column + 1] == dark { score += 3 }
            }
        }
        let darkCount = grid.reduce(0) { $0 + $1.filter { $0 }.count }
        let percent = darkCount * 100 / (size * size)
        score += abs(percent - 50) / 5 * 10
        return score
    }
}
