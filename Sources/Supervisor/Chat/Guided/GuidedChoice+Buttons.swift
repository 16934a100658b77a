import PiRelaySDK

extension GuidedChoice {
    /// Buttons on a choice hold this many options; a longer list is answered by typing.
    package static let maxButtons = 20

    /// A button per option, then **Custom answer** (and **Cancel** when `cancel`), five to a row,
    /// each `ga:SESSION:TOKEN:LABEL|custom|cancel`.
    package func buttons(session: String, token: String, cancel: Bool = false) -> [[Reply.Action]] {
        let prefix = "ga:\(session):\(token):"
        var buttons = options.prefix(Self.maxButtons).map { option in
            Reply.Action(id: prefix + option.label, label: String("\(option.label). \(option.text)".prefix(Reply.maxLabelLength)), style: "primary")
        }
        buttons.append(Reply.Action(id: prefix + "custom", label: "Custom answer", style: "secondary"))
        if cancel { buttons.append(Reply.Action(id: prefix + "cancel", label: "Cancel", style: "danger")) }
        return stride(from: 0, to: buttons.count, by: 5).map { Array(buttons[$0..<min($0 + 5, buttons.count)]) }
    }

    /// The step-through's card (a bare `answer`): the question and each option on a line.
    package var card: String {
        var lines = [question ?? "The last answer asks:"]
        lines += options.map { "\($0.label). \($0.text)" }
        lines.append(options.isEmpty ? "Send your answer, or cancel." : "Reply with a number or your own answer, or cancel.")
        return lines.joined(separator: "\n")
    }
}
