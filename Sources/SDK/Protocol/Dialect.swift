/// The markup a messenger shows (docs/PROTOCOL.md §3, hello `dialect`): the formatter renders
/// runs and notices in it, and plain text put into it is escaped with `escape`.
public enum Dialect: String, Sendable, CaseIterable {
    /// Discord's markdown; the default for a messenger that names none.
    case markdown
    /// Telegram's `parse_mode: HTML`: `<b>`, `<i>`, `<code>`, `<pre>`, `<a>`, `<blockquote>`.
    case telegramHTML = "telegram-html"
    /// Slack's mrkdwn.
    case slackMrkdwn = "slack-mrkdwn"
    /// A terminal's: text styled with ANSI SGR sequences (`ESC [ … m`) and nothing else, for
    /// `pi-relayd send --wait` and `stream --pretty`. Finished chunks are whole lines.
    case ansi
    /// A web page's (the `web` dashboard's): the tags `b`, `i`, `code`, `pre`, `a` (http and
    /// https, opened in a new tab with no referrer) and `blockquote`, everything else escaped,
    /// line breaks as LF (the page shows them with `white-space: pre-wrap`). Nothing in it can run
    /// in a browser: no other tag or attribute, no `javascript:` link.
    case html

    /// The dialect of a wire name; an unknown one is markdown, as if none were named.
    public init(wireName: String?) {
        self = wireName.flatMap(Dialect.init(rawValue:)) ?? .markdown
    }

    /// Plain text made safe to show in this dialect. Markdown is left as it is (a chat's plain
    /// text has always been shown as markdown); HTML and mrkdwn escape `&`, `<` and `>`, which
    /// is all either needs, and a web page's HTML both quotes too, so the text is safe in an
    /// attribute as well as between tags; for a terminal, control characters other than LF and tab become
    /// U+FFFD, so text from the agent can never move the cursor or restyle the terminal.
    public func escape(_ plain: String) -> String {
        switch self {
        case .markdown:
            return plain
        case .ansi:
            guard plain.unicodeScalars.contains(where: Self.isTerminalControl) else { return plain }
            var out = String.UnicodeScalarView()
            for scalar in plain.unicodeScalars { out.append(Self.isTerminalControl(scalar) ? "\u{FFFD}" : scalar) }
            return String(out)
        case .telegramHTML, .slackMrkdwn:
            return Self.entities(plain, quotes: false)
        case .html:
            return Self.entities(plain, quotes: true)
        }
    }

    /// `&`, `<` and `>` as entities, and with `quotes` both quotes too. By code point: a quote
    /// followed by a combining mark is one character, and an HTML parser still reads the quote.
    private static func entities(_ plain: String, quotes: Bool) -> String {
        var out = ""
        out.reserveCapacity(plain.utf8.count)
        for scalar in plain.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// C0 controls but LF and tab, DEL, and C1 controls: what a terminal may act on.
    public static func isTerminalControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    /// `ansi` text without its SGR sequences (`ESC [ digits ; … m`): what
    /// a terminal without colours should get, and what a line's width is counted on. The
    /// formatter writes no other escape (`escape` shows every control character as U+FFFD), so
    /// this leaves plain text.
    public static func unstyled(_ text: String) -> String {
        guard text.unicodeScalars.contains("\u{1B}") else { return text }
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\u{1B}", index + 1 < scalars.count, scalars[index + 1] == "[" {
                var end = index + 2
                while end < scalars.count, ("0"..."9").contains(scalars[end]) || scalars[end] == ";" { end += 1 }
                if end < scalars.count, scalars[end] == "m" {
                    index = end + 1
                    continue
                }
            }
            out.append(scalars[index])
            index += 1
        }
        return String(out)
    }
}
