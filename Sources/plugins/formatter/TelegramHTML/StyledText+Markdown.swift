extension StyledText {
    /// The styled text of a markdown document as the run renderer writes it: fenced code blocks
    /// (tables are already code blocks) become `<pre>`, `>` lines a `<blockquote>`, headings
    /// bold, and each line's inline markdown its tags. Everything else (lists, rules, tables
    /// left as they are) stays as it is written, as plain text.
    ///
    /// Fence lines show nothing; a code line's LF belongs to its block, a text line's LF to no
    /// tag. The writer moves a block's last LF out of it.
    init(markdown: String) {
        var blocks: Int32 = 0
        var quote: HTMLTag?
        var codeBlock: [HTMLTag] = []
        for line in MarkdownLine.scan(Substring(markdown)) {
            switch line.kind {
            case .fenceOpen(let fence):
                blocks += 1
                quote = nil
                codeBlock = HTMLTag.codeBlock(language: fence.language, block: blocks)
            case .code:
                append(line.text, tags: codeBlock)
                if line.hasNewline { append("\n", tags: codeBlock) }
            case .fenceClose:
                codeBlock = []
            case .text:
                let text = line.text
                let content = text.drop(while: { $0 == " " || $0 == "\t" })
                if content.first == ">", text.count - content.count <= 3 {
                    if quote == nil {
                        blocks += 1
                        quote = .quote(block: blocks)
                    }
                    let tags = quote.map { [$0] } ?? []
                    var quoted = content.dropFirst()
                    if quoted.first == " " { quoted = quoted.dropFirst() }
                    InlineMarkdown(quoted).append(to: &self, tags: tags)
                    if line.hasNewline { append("\n", tags: tags) }
                    continue
                }
                quote = nil
                if let heading = Self.headingText(text) {
                    let first = units.count
                    InlineMarkdown(heading).append(to: &self, tags: [.bold])
                    if first < units.count { units[first].startsHeading = true }
                } else if !text.isBlank {
                    InlineMarkdown(text).append(to: &self, tags: [])
                }
                if line.hasNewline { append("\n", tags: []) }
            }
        }
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
