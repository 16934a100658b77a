extension StyledText {
    /// The styled text of a markdown document as the run renderer writes it: fenced code blocks
    /// (tables are already code blocks) become `<pre>`, `>` lines a `<blockquote>`, headings
    /// bold, and each line's inline markdown its tags. Everything else (lists, rules, tables
    /// left as they are) stays as it is written, as plain text (`MarkdownStyler`).
    init(markdown: String) {
        var styler = MarkdownStyler()
        styler.read(Substring(markdown))
        self = styler.text
    }

    /// The text of an ATX heading line (`## Title`), or nil when the line is not one.
    static func headingText(_ line: Substring) -> Substring? {
        let marks = line.prefix(while: { $0 == "#" })
        guard (1...6).contains(marks.count) else { return nil }
        let rest = line.dropFirst(marks.count)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        return rest.drop(while: { $0 == " " || $0 == "\t" })
    }
}
