extension String {
    /// Without the LFs at the end.
    func trimmingTrailingNewlines() -> String {
        var end = utf8.endIndex
        while end > utf8.startIndex, utf8[utf8.index(before: end)] == 0x0A { end = utf8.index(before: end) }
        return String(self[..<end])
    }

    /// Without the blank lines at the start (the first line with text keeps its indentation).
    func trimmingLeadingBlankLines() -> String {
        var lineStart = utf8.startIndex
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x0A {
                lineStart = utf8.index(after: index)
            } else if byte != 0x20 && byte != 0x09 {
                return String(self[lineStart...])
            }
            index = utf8.index(after: index)
        }
        return ""
    }
}
