/// One line of markdown and where it stands relative to code fences. Table conversion, thinking
/// quotes and the live view's settled-text rule all need to skip what is inside a fence.
struct MarkdownLine {
    /// The line without its LF.
    let text: Substring
    /// False only for a last line that the text does not end with a LF.
    let hasNewline: Bool
    let kind: Kind

    /// Splits `text` on LF and classifies every line. A trailing LF does not start an empty line.
    /// `open` is the fence still open before `text`, for a text that goes on from earlier lines.
    static func scan(_ text: Substring, open: Fence? = nil) -> [MarkdownLine] {
        var lines: [MarkdownLine] = []
        var open = open
        var start = text.startIndex
        while start < text.endIndex {
            // Searched as bytes: a character-wise search would run grapheme breaking over everything.
            let end = ByteSearch.firstIndex(of: 0x0A, in: text[start...]) ?? text.endIndex
            let line = text[start..<end]
            let kind: Kind
            if let fence = open {
                if fence.isClosed(by: line.utf8) {
                    kind = .fenceClose(fence)
                    open = nil
                } else {
                    kind = .code(fence)
                }
            } else if let fence = Fence.opening(line.utf8) {
                kind = .fenceOpen(fence)
                open = fence
            } else {
                kind = .text
            }
            lines.append(MarkdownLine(text: line, hasNewline: end < text.endIndex, kind: kind))
            start = end < text.endIndex ? text.utf8.index(after: end) : end
        }
        return lines
    }

    /// The fence still open after the last of `lines`, if any.
    static func openFence(after lines: [MarkdownLine]) -> Fence? {
        switch lines.last?.kind {
        case .fenceOpen(let fence), .code(let fence): return fence
        default: return nil
        }
    }
}
