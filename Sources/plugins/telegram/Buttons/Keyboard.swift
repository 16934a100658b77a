import PiRelaySDK

/// Inline keyboards for a Reply's buttons and for questions, as rows of
/// `{text, callback_data, style?}` (at most 8 buttons a row, 100 in all, as Telegram allows).
struct Keyboard: Sendable {
    let tokens: ButtonTokens

    /// A Reply's rows of buttons; nil when it has none.
    func buttons(_ rows: [[Reply.Action]]) async -> JSONValue? {
        var out: [JSONValue] = []
        var count = 0
        for row in rows {
            var buttons: [JSONValue] = []
            for action in row.prefix(8) where count < 100 {
                buttons.append(await button(action.label, .action(action.id), style: action.style))
                count += 1
            }
            if !buttons.isEmpty { out.append(.array(buttons)) }
        }
        guard !out.isEmpty else { return nil }
        await tokens.save()
        return .array(out)
    }

    /// A question's controls: an option per row for `select`, Yes and No for `confirm`, and
    /// Cancel for every kind (`input` and `editor` are answered by replying with text).
    func question(_ question: QuestionPost) async -> JSONValue? {
        // Asked in the terminal only (method "terminal"): nothing to press here.
        if question.method == "terminal" { return nil }
        var rows: [JSONValue] = []
        let session = question.sessionID
        let id = question.id
        switch question.method {
        case "select":
            for (index, option) in question.options.prefix(90).enumerated() {
                let label = "\(index + 1). " + option
                rows.append([await button(label, .answer(session: session, question: id, value: option, confirmed: nil, cancelled: false))])
            }
        case "confirm":
            rows.append([
                await button("Yes", .answer(session: session, question: id, value: nil, confirmed: true, cancelled: false), style: "success"),
                await button("No", .answer(session: session, question: id, value: nil, confirmed: false, cancelled: false), style: "danger"),
            ])
        default:
            break
        }
        rows.append([await button("Cancel", .answer(session: session, question: id, value: nil, confirmed: nil, cancelled: true))])
        await tokens.save()
        return .array(rows)
    }

    private func button(_ label: String, _ action: ButtonAction, style: String? = nil) async -> JSONValue {
        var button: JSONValue = ["text": .string(String(label.prefix(60))), "callback_data": .string(await tokens.token(for: action))]
        if let style, ["primary", "success", "danger"].contains(style) { button["style"] = .string(style) }
        return button
    }
}
