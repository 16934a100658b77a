import PiRelaySDK

/// Text as Slack's mrkdwn takes it: plain text escaped (`&`, `<`, `>` and nothing else), long
/// text split within the limit at a line break or a space, and the comparison an edit needs.
enum SlackText {
    /// The most characters one message's `text` gets from us: a section block's 3,000, well
    /// inside `chat.update`'s 4,000 (`msg_too_long`), so every chunk also fits a block.
    static let limit = 3000

    static func escaped(_ plain: String) -> String { Dialect.slackMrkdwn.escape(plain) }

    /// Plain text that must read as written (a gate's command: `rm *.log ~/tmp/*` loses its
    /// stars as mrkdwn): mrkdwn has no escape for `*`, `_`, `~` and backquotes, so text holding
    /// one goes in a code block, where they are shown as they are.
    static func verbatim(_ plain: String) -> String {
        guard plain.contains(where: { "*_~`".contains($0) }) else { return escaped(plain) }
        return "```" + escaped(plain.replacing("```", with: "`\u{200B}``")) + "```"
    }

    /// Plain text in escaped pieces of at most `limit` characters, cut at a line break or a space
    /// in the last quarter when there is one. Escaped first: an escape makes text longer.
    static func chunks(_ plain: String, limit: Int = limit) -> [String] {
        split(escaped(plain), limit: limit)
    }

    /// Text already in mrkdwn in pieces of at most `limit` characters, cut at a line break when
    /// there is one in the last quarter and never inside an entity (`&amp;`) or a `<…>` token.
    /// Characters are counted in UTF-16 units, never fewer than code points whichever Slack
    /// counts (a Devanagari letter of four code points is one `Character`).
    static func split(_ text: String, limit: Int = limit) -> [String] {
        var pieces: [String] = []
        var rest = Substring(text)
        while rest.utf16.count > limit {
            var cut = end(of: rest, within: limit)
            let floor = end(of: rest, within: limit * 3 / 4)
            if let newline = rest[floor..<cut].lastIndex(of: "\n") ?? rest[floor..<cut].lastIndex(of: " ") {
                cut = rest.index(after: newline)
            } else if let open = rest[floor..<cut].lastIndex(where: { $0 == "&" || $0 == "<" }),
                !rest[open..<cut].contains(where: { $0 == ";" || $0 == ">" })
            {
                cut = open
            }
            pieces.append(String(rest[..<cut]))
            rest = rest[cut...]
        }
        if !rest.trimmed().isEmpty || pieces.isEmpty { pieces.append(String(rest)) }
        return pieces
    }

    /// Where the longest run of whole characters from `text`'s start within `units` UTF-16
    /// units ends; at least one character, so a split always moves on.
    private static func end(of text: Substring, within units: Int) -> Substring.Index {
        var used = 0
        var end = text.startIndex
        while end < text.endIndex {
            used += text[end].utf16.count
            if used > units, end > text.startIndex { break }
            end = text.index(after: end)
        }
        return end
    }

    /// A mention of `user` in mrkdwn (Slack shows their name).
    static func mention(_ user: String) -> String { "<@" + user + ">" }
}
