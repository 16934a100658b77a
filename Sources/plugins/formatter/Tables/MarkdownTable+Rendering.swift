extension MarkdownTable {
    /// The table as the lines of a code block, fences included:
    ///
    ///     ```
    ///     name  | 数量
    ///     ------+-----
    ///     apple |    3
    ///     ```
    var codeBlockLines: [String] {
        var widths = header.map { max(1, $0.displayWidth) }
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.displayWidth) }
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { alignments[$0].pad($1, to: widths[$0]) }
            return trimmingTrailingSpaces(padded.joined(separator: " | "))
        }
        var out = ["```", line(header)]
        out.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"))
        for row in rows { out.append(line(row)) }
        out.append("```")
        return out
    }

    private func trimmingTrailingSpaces(_ text: String) -> String {
        var trimmed = Substring(text)
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// `text` with every table outside code fences replaced by its code block.
    static func replacingTables(in text: String) -> String {
        // Cheap exit for the common case: no pipe, no table.
        guard ByteSearch.contains(UInt8(ascii: "|"), in: text[...]) else { return text }
        let lines = MarkdownLine.scan(Substring(text))
        var out: [Substring] = []
        out.reserveCapacity(lines.count)
        var changed = false
        var index = 0
        while index < lines.count {
            if lines[index].kind.isText, let (table, count) = parse(lines, at: index) {
                out.append(contentsOf: table.codeBlockLines.map { Substring($0) })
                changed = true
                index += count
                continue
            }
            out.append(lines[index].text)
            index += 1
        }
        guard changed else { return text }
        var result = out.joined(separator: "\n")
        if lines.last?.hasNewline == true { result += "\n" }
        return result
    }
}
