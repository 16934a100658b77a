import PiRelaySDK

/// A text attachment as a Markdown code block under its file name.
enum FencedBlock {
    static func render(name: String, language: String, text: String) -> String {
        var body = text
        if body.hasPrefix("\u{FEFF}") { body.removeFirst() }
        if !body.isEmpty && !body.hasSuffix("\n") { body += "\n" }
        let marker = fence(for: body)
        return "[attachment \(name)]\n\(marker)\(language)\n\(body)\(marker)"
    }

    /// A fence one backtick longer than the longest backtick run in the text (at least three), so
    /// nothing inside the file can close the block early.
    static func fence(for text: String) -> String {
        String(repeating: "`", count: max(3, text.longestBacktickRun + 1))
    }
}
