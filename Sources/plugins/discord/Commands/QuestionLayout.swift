import FoundationEssentials
import MessengerKit
import PiRelaySDK

/// How a question looks in Discord. confirm: Yes/No buttons. select: numbered options as buttons
/// (select menus past 20) plus Cancel, and the user may also reply with the number or the text.
/// input/editor: a request for a text reply, and Cancel. The expiry is shown as time left and
/// as Discord's own clock time.
enum QuestionLayout {
    static func body(_ question: QuestionPost, key: String, now: Date, mention: String?) -> JSONValue {
        Poster.body(text(question, now: now, mention: mention), components: components(question, key: key), mention: mention)
    }

    static func text(_ question: QuestionPost, now: Date, mention: String?) -> String {
        var lines: [String] = []
        // Plain text (PROTOCOL.md, Markup): a gate's command shown as markdown is not the one that
        // runs (`a || curl x | sh || b` hides its middle as a spoiler, `rm *.log ~/tmp/*` loses its stars).
        lines.append((mention.map { "<@\($0)> " } ?? "") + "❓ **\(question.title.markdownEscaped)**")
        if let message = question.message, !message.isEmpty { lines.append(message.markdownEscaped) }
        switch question.method {
        case "terminal":
            break  // asked in the terminal only: the message says so, nothing to answer here
        case "confirm":
            lines.append("Press **Yes** or **No**.")
        case "select":
            let list = question.options.enumerated().map { "\($0 + 1). \($1.markdownEscaped)" }
            lines.append(list.joined(separator: "\n"))
            lines.append(
                question.options.count <= ComponentLayout.capacity(maxRows: 4)
                    ? "Choose below, or reply with the number or the text."
                    : "Reply with the number or the text of your choice.")
        default:
            let hint = question.placeholder.map { " (\($0.markdownEscaped))" } ?? ""
            lines.append("Reply with your answer\(hint), or /cancel.")
        }
        if let expires = expiry(question, now: now) { lines.append(expires) }
        return fit(lines)
    }

    static func expiry(_ question: QuestionPost, now: Date) -> String? {
        guard let at = question.expiryDate else { return nil }
        let left = Int(at.timeIntervalSince(now).rounded())
        let stamp = "<t:\(Int(at.timeIntervalSince1970)):T>"
        guard left > 0 else { return "⏳ expires now (\(stamp))" }
        let span = left < 120 ? "\(left) s" : left < 7200 ? "\(left / 60) min" : "\(left / 3600) h"
        return "⏳ expires in \(span) (\(stamp))"
    }

    static func components(_ question: QuestionPost, key: String) -> [JSONValue] {
        let cancel = ButtonSpec(customID: QuestionChoice(key: key, choice: .cancel).customID, label: "Cancel", style: 2)
        switch question.method {
        case "terminal":
            return []
        case "confirm":
            return ComponentLayout.components(
                [
                    [
                        ButtonSpec(customID: QuestionChoice(key: key, choice: .yes).customID, label: "Yes", style: 3),
                        ButtonSpec(customID: QuestionChoice(key: key, choice: .no).customID, label: "No", style: 4),
                    ]
                ], menuPrefix: QuestionChoice.menuPrefix(key: key))
        case "select":
            // Up to 20 options as buttons in four rows, more as menus in those rows; Cancel is
            // always the fifth row.
            let buttons = question.options.prefix(ComponentLayout.capacity(maxRows: 4)).enumerated().map { index, option in
                ButtonSpec(customID: QuestionChoice(key: key, choice: .option(index)).customID, label: "\(index + 1). \(option)", style: 1)
            }
            return ComponentLayout.components(chunked(buttons, 5), menuPrefix: QuestionChoice.menuPrefix(key: key), maxRows: 4)
                + [["type": 1, "components": [ComponentLayout.button(cancel)]]]
        default:
            return ComponentLayout.components([[cancel]], menuPrefix: QuestionChoice.menuPrefix(key: key))
        }
    }

    /// What the question message shows once closed: its title and the supervisor's outcome line,
    /// as plain text as when it was open. The outcome holds the answer as typed and who gave it:
    /// read as markdown, the record of what was approved would read otherwise than it was.
    static func closed(title: String, outcome: String) -> JSONValue {
        [
            "content": .string(fit(["❓ **\(title.markdownEscaped)**", outcome.markdownEscaped])), "components": [],
            "allowed_mentions": Poster.allowedMentions(nil),
            "flags": JSONValue(Poster.suppressEmbeds),
        ]
    }

    private static func chunked(_ items: [ButtonSpec], _ size: Int) -> [[ButtonSpec]] {
        stride(from: 0, to: items.count, by: size).map { Array(items[$0..<min($0 + size, items.count)]) }
    }

    private static func fit(_ lines: [String]) -> String {
        TextFit.clamp(lines.joined(separator: "\n"), to: Poster.limit)
    }
}
