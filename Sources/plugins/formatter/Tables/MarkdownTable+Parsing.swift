extension MarkdownTable {
    /// Splits a row on unescaped pipes, dropping the optional outer ones. Nil when the line has no
    /// pipe at all (it then cannot be part of a table).
    static func cells(of line: Substring) -> [Substring]? {
        var row = Substring(line.trimmingSpaces())
        guard row.utf8.contains(UInt8(ascii: "|")) else { return nil }
        if row.hasPrefix("|") { row = row.dropFirst() }
        if row.hasSuffix("|"), !row.hasSuffix("\\|") { row = row.dropLast() }
        var cells: [Substring] = []
        var start = row.startIndex
        var position = row.startIndex
        while position < row.endIndex {
            if row[position] == "\\" {
                position = row.index(after: position)
                if position < row.endIndex { position = row.index(after: position) }
                continue
            }
            if row[position] == "|" {
                cells.append(row[start..<position])
                start = row.index(after: position)
            }
            position = row.index(after: position)
        }
        cells.append(row[start..<row.endIndex])
        return cells
    }

    /// The alignments of a delimiter row (`|---|:-:|`), or nil when the line is not one.
    static func alignments(of line: Substring) -> [ColumnAlignment]? {
        guard let cells = cells(of: line) else { return nil }
        var result: [ColumnAlignment] = []
        for cell in cells {
            guard let alignment = ColumnAlignment(delimiter: cell) else { return nil }
            result.append(alignment)
        }
        return result
    }

    /// Cell text as shown in a code block: trimmed, escaped pipes restored, and the emphasis and
    /// code markers dropped since a code block would show them literally.
    static func cellText(_ cell: Substring) -> String {
        var text = cell.trimmingSpaces()
        text = text.replacing("\\|", with: "|")
        text = text.replacing("**", with: "")
        text = text.replacing("`", with: "")
        return text
    }

    /// Parses the table starting at `lines[at]`, if one starts there: a header row, a delimiter
    /// row with as many cells, and the rows after it that contain a pipe. Returns the table and
    /// how many lines it covers.
    static func parse(_ lines: [MarkdownLine], at index: Int) -> (table: MarkdownTable, lineCount: Int)? {
        guard index + 1 < lines.count, lines[index].kind.isText, lines[index + 1].kind.isText,
            lines[index].text.utf8.contains(UInt8(ascii: "|")), isDelimiterShaped(lines[index + 1].text),
            let head = cells(of: lines[index].text),
            let aligns = alignments(of: lines[index + 1].text), aligns.count == head.count
        else { return nil }
        var rows: [[String]] = []
        var lineIndex = index + 2
        while lineIndex < lines.count, lines[lineIndex].kind.isText, !lines[lineIndex].text.isBlank, let row = cells(of: lines[lineIndex].text) {
            var texts = row.prefix(head.count).map(cellText)
            while texts.count < head.count { texts.append("") }
            rows.append(texts)
            lineIndex += 1
        }
        return (MarkdownTable(header: head.map(cellText), alignments: aligns, rows: rows), lineIndex - index)
    }

    /// A cheap byte check before parsing: a delimiter row has only pipes, colons, dashes and
    /// spaces, with at least one pipe and one dash.
    private static func isDelimiterShaped(_ line: Substring) -> Bool {
        var pipe = false, dash = false
        for byte in line.utf8 {
            switch byte {
            case UInt8(ascii: "|"): pipe = true
            case UInt8(ascii: "-"): dash = true
            case UInt8(ascii: ":"), 0x20, 0x09, 0x0D: break
            default: return false
            }
        }
        return pipe && dash
    }
}
