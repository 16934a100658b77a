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
            for (c, cell) in row.enumerated() { widths[c] = max(widths[c], cell.displayWidth) }
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

    private func trimmingTrailingSpaces(_ s: String) -> String {
        var t = Substring(s)
        while t.last == " " { t = t.dropLast() }
        return String(t)
    }

    /// `text` with every table outside code fences replaced by its code block.
    static func replacingTables(in text: String) -> String {
        // Cheap exit for the common case: no pipe, no table.
        guard text.utf8.contains(UInt8(ascii: "|")) else { return text }
        let lines = MarkdownLine.scan(Substring(text))
        var out: [Substring] = []
        out.reserveCapacity(lines.count)
        var changed = false
        var i = 0
        while i < lines.count {
            if lines[i].kind.isText, let (table, count) = parse(lines, at: i) {
                out.append(contentsOf: table.codeBlockLines.map { Substring($0) })
                changed = true
                i += count
                continue
            }
            out.append(lines[i].text)
            i += 1
        }
        guard changed else { return text }
        var result = out.joined(separator: "\n")
        if lines.last?.hasNewline == true { result += "\n" }
        return result
    }
}
