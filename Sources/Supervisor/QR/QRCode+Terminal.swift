extension QRCode {
    /// The code in half-block characters, two module rows per line, with the standard four
    /// modules of quiet zone. Light modules are drawn and dark ones left blank, which reads right
    /// on the dark background most terminals have (and phone scanners read the inverse too).
    package func terminalText(quietZone: Int = 4) -> String {
        let span = size + 2 * quietZone
        func light(_ row: Int, _ column: Int) -> Bool {
            let (y, x) = (row - quietZone, column - quietZone)
            guard (0..<size).contains(y), (0..<size).contains(x) else { return true }
            return !modules[y][x]
        }
        var lines: [String] = []
        for row in stride(from: 0, to: span, by: 2) {
            var line = ""
            for column in 0..<span {
                let top = light(row, column)
                let bottom = row + 1 < span ? light(row + 1, column) : false
                line += top ? (bottom ? "█" : "▀") : (bottom ? "▄" : " ")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
