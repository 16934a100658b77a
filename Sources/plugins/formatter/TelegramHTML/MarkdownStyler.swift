/// Reads markdown into styled text line by line (`StyledText(markdown:)`), keeping what a line
/// needs from the lines before it (the open fence, code block and quote, the blocks so far), so
/// that it can go on reading where it stopped. Reading a document in parts that each end at a
/// line boundary gives the same styled text as reading it whole: the live view's settled text
/// is read once and only what a run adds is read after it (`SettledTexts`).
///
/// Fence lines show nothing; a code line's LF belongs to its block, a text line's LF to no tag.
/// The writer moves a block's last LF out of it.
struct MarkdownStyler: Sendable {
    private(set) var text = StyledText()
    private var blocks: Int32 = 0
    private var quote: HTMLTag?
    private var codeBlock: [HTMLTag] = []
    private var fence: Fence?

    /// Reads `markdown`, which goes on from what was read before. Everything read before it must
    /// have ended with a LF.
    mutating func read(_ markdown: Substring) {
        let lines = MarkdownLine.scan(markdown, open: fence)
        if !lines.isEmpty { fence = MarkdownLine.openFence(after: lines) }
        for line in lines { read(line) }
    }

    private mutating func read(_ line: MarkdownLine) {
        switch line.kind {
        case .fenceOpen(let fence):
            blocks += 1
            quote = nil
            codeBlock = HTMLTag.codeBlock(language: fence.language, block: blocks)
        case .code:
            text.append(line.text, tags: codeBlock)
            if line.hasNewline { text.append("\n", tags: codeBlock) }
        case .fenceClose:
            codeBlock = []
        case .text:
            let content = line.text.drop(while: { $0 == " " || $0 == "\t" })
            if content.first == ">", line.text.count - content.count <= 3 {
                if quote == nil {
                    blocks += 1
                    quote = .quote(block: blocks)
                }
                let tags = quote.map { [$0] } ?? []
                var quoted = content.dropFirst()
                if quoted.first == " " { quoted = quoted.dropFirst() }
                InlineMarkdown(quoted).append(to: &text, tags: tags)
                if line.hasNewline { text.append("\n", tags: tags) }
                return
            }
            quote = nil
            if let heading = StyledText.headingText(line.text) {
                let first = text.units.count
                InlineMarkdown(heading).append(to: &text, tags: [.bold])
                if first < text.units.count { text.units[first].startsHeading = true }
            } else if !line.text.isBlank {
                InlineMarkdown(line.text).append(to: &text, tags: [])
            }
            if line.hasNewline { text.append("\n", tags: []) }
        }
    }
}
