import PiRelaySDK

/// A terminal's markup (`Dialect.ansi`, for `pi-relayd send --wait` and `stream --pretty`): the
/// markdown document as lines styled with SGR sequences (`StyledText.terminalLines`).
///
/// A terminal scrolls instead of editing, so a finished chunk of the live view is one finished
/// line: the CLI prints each once, and only the tail (every line still growing, uncut) is
/// redrawn. `limit` is the widest a line may be (a longer one is cut); a final's messages are
/// lines packed up to `limit` characters, never numbered, since a terminal shows them one after
/// the other anyway.
struct ANSITerminal: Markup {
    /// The narrowest terminal line a request may ask for.
    static let minimumLimit = 20

    func split(_ document: String, limit: Int, numbered: Bool) -> [String] {
        var lines = StyledText(markdown: document).terminalLines(width: limit)[...]
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        var messages: [String] = []
        var current: [String] = []
        var length = 0
        for line in lines {
            let cost = Self.visibleLength(line)
            if !current.isEmpty, length + 1 + cost > limit {
                messages.append(current.joined(separator: "\n"))
                current = []
                length = 0
            }
            length += (current.isEmpty ? 0 : 1) + cost
            current.append(line)
        }
        if !current.isEmpty { messages.append(current.joined(separator: "\n")) }
        return messages
    }

    func live(settled: String, current: String, limit: Int) -> (chunks: [String], tail: String) {
        let done = StyledText(markdown: settled).terminalLines(width: limit)
        let now = StyledText(markdown: current).terminalLines(width: limit)
        guard now.starts(with: done) else {
            // As for markdown: cannot happen while the renderer keeps its prefix promise.
            return ([], now.joined(separator: "\n"))
        }
        return (done, now.dropFirst(done.count).joined(separator: "\n"))
    }

    func rendered(_ markdown: String) -> String {
        StyledText(markdown: markdown).terminalLines(width: Int.max).joined(separator: "\n")
    }

    func escaped(_ plain: String) -> String { Dialect.ansi.escape(plain) }

    func length(_ message: String) -> Int { Self.visibleLength(message) }

    /// The characters a terminal shows of `text`: its SGR sequences take no room.
    static func visibleLength(_ text: String) -> Int { Dialect.unstyled(text).count }
}
