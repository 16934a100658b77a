import PiRelaySDK

/// Text as Slack's mrkdwn takes it: plain text escaped (`&`, `<`, `>` and nothing else), long
/// text split within the limit at a line break or a space, and the comparison an edit needs.
enum SlackText {
    /// The most characters one message's `text` gets from us: a section block's 3,000, well
    /// inside `chat.update`'s 4,000 (`msg_too_long`), so every chunk also fits a block.
    static let limit = 3000

    static func escaped(_ plain: String) -> String { Dialect.slackMrkdwn.escape(plain) }

    /// Plain text in escaped pieces of at most `limit` characters, cut at a line break or a space
    /// in the last quarter when there is one. Escaped first: an escape makes text longer.
    static func chunks(_ plain: String, limit: Int = limit) -> [String] {
        split(escaped(plain), limit: limit)
    }

    /// Text already in mrkdwn in pieces of at most `limit` characters, cut at a line break when
    /// there is one in the last quarter and never inside an entity (`&amp;`) or a `<…>` token.
    static func split(_ text: String, limit: Int = limit) -> [String] {
        var pieces: [String] = []
        var rest = Substring(text)
        while rest.count > limit {
            var cut = rest.index(rest.startIndex, offsetBy: limit)
            let floor = rest.index(rest.startIndex, offsetBy: limit * 3 / 4)
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

    /// A mention of `user` in mrkdwn (Slack shows their name).
    static func mention(_ user: String) -> String { "<@" + user + ">" }
}
