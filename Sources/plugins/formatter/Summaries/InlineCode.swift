/// Wraps text in a markdown code span that survives backticks inside it.
enum InlineCode {
    static func wrap(_ text: String) -> String {
        guard !text.isEmpty else { return "` `" }
        var longest = 0, current = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "`") {
                current += 1
                longest = max(longest, current)
            } else {
                current = 0
            }
        }
        guard longest > 0 else { return "`" + text + "`" }
        // A longer run of backticks than any inside, padded with spaces so an edge backtick
        // does not merge with the delimiter.
        let fence = String(repeating: "`", count: longest + 1)
        return fence + " " + text + " " + fence
    }
}
