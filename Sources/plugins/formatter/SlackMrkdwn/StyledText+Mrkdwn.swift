extension StyledText {
    /// Units `range` as Slack mrkdwn, without the whitespace at either end: bold `*…*`, italic
    /// `_…_`, inline code in backticks, a code block in a fence without a language (a word after
    /// Slack's opening fence would show as code), a quote as `> ` lines, a link as `<url|text>`;
    /// every style opened is closed by the end of the range. Text, code included, gets Slack's
    /// three escapes (`&`, `<`, `>`) and nothing else.
    func mrkdwn(_ range: Range<Int>) -> String {
        let (from, to) = trimmed(range)
        var out = ""
        var open: [HTMLTag] = []
        var lineStart = true
        for index in from..<to {
            var tags = self.tags(index)
            let character = character(at: index)
            if character == "\n" {
                let next = index + 1 < to ? self.tags(index + 1) : []
                tags = Array(tags.prefix(Self.mrkdwnCommonPrefix(tags, next)))
            }
            if tags != open {
                let common = Self.mrkdwnCommonPrefix(open, tags)
                for tag in open[common...].reversed() { out += Self.marker(tag, opening: false) }
                if lineStart, tags.contains(where: { $0.name == "blockquote" }) { out += "> " }
                for tag in tags[common...] { out += Self.marker(tag, opening: true) }
                open = tags
            } else if lineStart, tags.contains(where: { $0.name == "blockquote" }) {
                out += "> "
            }
            // By code point: a `<` followed by a combining mark is one character, and still
            // opens a link or a mention for Slack.
            for scalar in character.unicodeScalars {
                switch scalar {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                default: out.unicodeScalars.append(scalar)
                }
            }
            lineStart = character == "\n"
        }
        for tag in open.reversed() { out += Self.marker(tag, opening: false) }
        return out
    }

    /// The marker mrkdwn writes before (`opening`) or after a tag's text.
    private static func marker(_ tag: HTMLTag, opening: Bool) -> String {
        switch tag.name {
        case "b": "*"
        case "i": "_"
        case "code" where tag.block == 0: "`"
        case "pre": opening ? "```\n" : "\n```"
        case "a": opening ? "<" + tag.mrkdwnAddress + "|" : ">"
        default: ""
        }
    }

    private static func mrkdwnCommonPrefix(_ a: [HTMLTag], _ b: [HTMLTag]) -> Int {
        var count = 0
        while count < a.count, count < b.count, a[count] == b[count] { count += 1 }
        return count
    }
}

extension HTMLTag {
    /// A link's address as it may stand between `<` and `|`: Slack's escapes, and the two
    /// characters that would end the link early percent-encoded.
    var mrkdwnAddress: String {
        address.replacing("&", with: "&amp;").replacing("<", with: "%3C").replacing(">", with: "%3E").replacing("|", with: "%7C")
    }
}
