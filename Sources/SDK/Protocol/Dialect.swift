/// The markup a messenger shows (docs/PROTOCOL.md §3, hello `dialect`): the formatter renders
/// runs and notices in it, and plain text put into it is escaped with `escape`.
public enum Dialect: String, Sendable, CaseIterable {
    /// Discord's markdown; the default for a messenger that names none.
    case markdown
    /// Telegram's `parse_mode: HTML`: `<b>`, `<i>`, `<code>`, `<pre>`, `<a>`, `<blockquote>`.
    case telegramHTML = "telegram-html"
    /// Slack's mrkdwn.
    case slackMrkdwn = "slack-mrkdwn"

    /// The dialect of a wire name; an unknown one is markdown, as if none were named.
    public init(wireName: String?) {
        self = wireName.flatMap(Dialect.init(rawValue:)) ?? .markdown
    }

    /// Plain text made safe to show in this dialect. Markdown is left as it is (a chat's plain
    /// text has always been shown as markdown); HTML and mrkdwn escape `&`, `<` and `>`, which
    /// is all either needs.
    public func escape(_ plain: String) -> String {
        switch self {
        case .markdown:
            return plain
        case .telegramHTML, .slackMrkdwn:
            var out = ""
            out.reserveCapacity(plain.utf8.count)
            for character in plain {
                switch character {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                default: out.append(character)
                }
            }
            return out
        }
    }
}
