extension MarkdownTable {
    /// Splits a row on unescaped pipes, dropping the optional outer ones. Nil when the line has no
    /// pipe at all (it then cannot be part of a table).
    static func cells(of line: Substring) -> [Substring]? {
        var t = Substring(line.trimmingSpaces())
        guard t.utf8.contains(UInt8(ascii: "|")) else { return nil }
        if t.hasPrefix("|") { t = t.dropFirst() }
        if t.hasSuffix("|"), !t.hasSuffix("\\|") { t = t.dropLast() }
        var cells: [Substring] = []
        var start = t.startIndex
        var i = t.startIndex
        while i < t.endIndex {
            if t[i] == "\\" {
                i = t.index(after: i)
                if i < t.endIndex { i = t.index(after: i) }
                continue
            }
            if t[i] == "|" {
                cells.append(t[start..<i])
                start = t.index(after: i)
            }
            i = t.index(after: i)
        }
        cells.append(t[start..<t.endIndex])
        return cells
    }

    /// The alignments of a delimiter row (`|---|:-:|`), or nil when the line is not one.
    static func alignments(of line: Substring) -> [ColumnAlignment]? {
        guard let cells = cells(of: line) else { return nil }
        var result: [ColumnAlignment] = []
        for cell in cells {
            guard let a = ColumnAlignment(delimiter: cell) else { return nil }
            result.append(a)
        }
        return result
    }

    /// Cell text as shown in a code block: trimmed, escaped pipes restored, and the emphasis and
    /// code markers dropped since a code block would show them literally.
    static func cellText(_ cell: Substring) -> String {
        var t = cell.trimmingSpaces()
        t = t.replacing("\\|", with: "|")
        t = t.replacing("**", with: "")
        t = t.replacing("`", with: "")
        return t
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
        var i = index + 2
        while i < lines.count, lines[i].kind.isText, !lines[i].text.isBlank, let row = cells(of: lines[i].text) {
            var texts = row.prefix(head.count).map(cellText)
            while texts.count < head.count { texts.append("") }
            rows.append(texts)
            i += 1
        }
        return (MarkdownTable(header: head.map(cellText), alignments: aligns, rows: rows), i - index)
    }

    /// A cheap byte check before parsing: a delimiter row has only pipes, colons, dashes and
    /// spaces, with at least one pipe and one dash.
    private static func isDelimiterShaped(_ line: Substring) -> Bool {
        var pipe = false, dash = false
        for b in line.utf8 {
            switch b {
            case UInt8(ascii: "|"): pipe = true
            case UInt8(ascii: "-"): dash = true
            case UInt8(ascii: ":"), 0x20, 0x09, 0x0D: break
            default: return false
            }
        }
        return pipe && dash
    }
}
