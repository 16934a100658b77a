import MessengerKit
import PiRelaySDK

/// Block Kit for a Reply's buttons and for questions, within Slack's limits (spec section 6):
/// a section of at most 3,000 characters, button labels of at most 75, `action_id`s unique in the
/// message, no more than 25 elements an actions block, only `primary` and `danger` styles, and a
/// static select (at most 100 options) when a question has more than 5.
enum Blocks {
    static let actionPrefix = "act."
    static let questionPrefix = "q."

    /// A section with `mrkdwn` and, when there are buttons, actions blocks for them; nil without
    /// buttons (the text alone is the message).
    static func reply(_ mrkdwn: String, actions rows: [[Reply.Action]]) -> JSONValue? {
        var blocks: [JSONValue] = []
        var count = 0
        for (rowIndex, row) in rows.prefix(20).enumerated() {
            var elements: [JSONValue] = []
            for action in row.prefix(25) {
                var button = button(action.label, actionID: actionPrefix + String(count), value: action.id)
                if let style = style(action.style) { button["style"] = .string(style) }
                elements.append(button)
                count += 1
            }
            if !elements.isEmpty { blocks.append(["type": "actions", "block_id": .string("row\(rowIndex)"), "elements": .array(elements)]) }
        }
        guard !blocks.isEmpty else { return nil }
        return .array([section(mrkdwn)] + blocks)
    }

    /// A question: its text, then buttons (an option each up to 5, Yes and No for `confirm`)
    /// or a static select, and Cancel.
    static func question(_ mrkdwn: String, _ question: QuestionPost) -> JSONValue {
        // Asked in the terminal only (method "terminal"): the text, no buttons.
        if question.method == "terminal" { return [section(mrkdwn)] }
        var elements: [JSONValue] = []
        let options = Array(question.options.prefix(100))
        switch question.method {
        case "select" where options.count > 5:
            elements.append([
                "type": "static_select", "action_id": .string(questionPrefix + "select"),
                "placeholder": ["type": "plain_text", "text": "Pick one"],
                "options": .array(
                    options.enumerated().map { index, option in
                        ["text": ["type": "plain_text", "text": .string(label("\(index + 1). " + option))], "value": .string(String(index))]
                    }),
            ])
        case "select":
            for (index, option) in options.enumerated() {
                elements.append(button("\(index + 1). " + option, actionID: questionPrefix + "option\(index)", value: String(index)))
            }
        case "confirm":
            var yes = button("Yes", actionID: questionPrefix + "yes", value: "yes")
            yes["style"] = "primary"
            var no = button("No", actionID: questionPrefix + "no", value: "no")
            no["style"] = "danger"
            elements += [yes, no]
        default:
            break
        }
        elements.append(button("Cancel", actionID: questionPrefix + "cancel", value: "cancel"))
        return [section(mrkdwn), ["type": "actions", "block_id": "question", "elements": .array(elements)]]
    }

    /// A closed question: its text and who answered, no controls.
    static func closed(_ mrkdwn: String, note: String) -> JSONValue {
        [
            section(mrkdwn),
            ["type": "context", "elements": [["type": "mrkdwn", "text": .string(SlackText.split(note, limit: 3000)[0]), "verbatim": true]]],
        ]
    }

    static func section(_ mrkdwn: String) -> JSONValue {
        let text = mrkdwn.isEmpty ? " " : mrkdwn
        // verbatim: no `@channel` or link in a question's text is turned into a ping or a link by Slack.
        return ["type": "section", "text": ["type": "mrkdwn", "text": .string(SlackText.split(text, limit: 3000)[0]), "verbatim": true]]
    }

    private static func button(_ text: String, actionID: String, value: String) -> JSONValue {
        ["type": "button", "text": ["type": "plain_text", "text": .string(label(text))], "action_id": .string(actionID), "value": .string(value)]
    }

    /// Labels are at most 75 characters (slack-api.md §6; Slack shows about 30), counted so that
    /// a character of many code points cannot take a question over the limit.
    static func label(_ text: String) -> String {
        TextFit.label(text, max: 75)
    }

    private static func style(_ style: String) -> String? {
        switch style {
        case "primary", "success": "primary"
        case "danger": "danger"
        default: nil
        }
    }
}
