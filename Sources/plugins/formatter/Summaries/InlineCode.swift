import PiRelaySDK

/// Wraps text in a markdown code span that survives backticks inside it.
enum InlineCode {
    static func wrap(_ text: String) -> String {
        guard !text.isEmpty else { return "` `" }
        let longest = text.longestBacktickRun
        guard longest > 0 else { return "`" + text + "`" }
        // A longer run of backticks than any inside, padded with spaces so an edge backtick
        // does not merge with the delimiter.
        let fence = String(repeating: "`", count: longest + 1)
        return fence + " " + text + " " + fence
    }
}
