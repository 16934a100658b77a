import PiRelaySDK

/// Guided answers (issue 17 point 7): a final answer that ends with options or a question gets
/// a line of buttons under it, one per option and **Custom answer**.
extension ChatDelivery {
    /// Buttons on a choice hold this many options; a longer list is answered by typing.
    package static let maxChoiceButtons = 20

    package func offerChoice(_ run: RunRecord, to targets: [Binding]) async {
        guard !targets.isEmpty, run.errorMessage == nil, run.stopReason == nil || run.stopReason == "stop",
            let choice = GuidedChoice.parse(run.text)
        else { return }
        let token = await guided.offer(choice, session: run.sessionID)
        let prefix = "ga:\(run.sessionID):\(token):"
        var buttons = choice.options.prefix(Self.maxChoiceButtons).map { option in
            Reply.Action(id: prefix + option.label, label: String("\(option.label). \(option.text)".prefix(Reply.maxLabelLength)), style: "primary")
        }
        buttons.append(Reply.Action(id: prefix + "custom", label: "Custom answer", style: "secondary"))
        let rows = stride(from: 0, to: buttons.count, by: 5).map { Array(buttons[$0..<min($0 + 5, buttons.count)]) }
        let text =
            choice.options.isEmpty
            ? "Answer with **Custom answer**, or just reply."
            : "Pick an answer, or reply with its number (`2`, `option 2`); **Custom answer** to write your own."
        for binding in targets {
            let shown = dialect(of: binding.messenger) == .markdown ? text : Self.unmarked(text)
            let post = ChatPostParams(target: binding.target, kind: .reply, sessionID: run.sessionID, text: shown, actions: rows)
            await deliver(binding.messenger, .chatPost, await labeled(post, for: binding))
        }
    }

    /// The hint without markdown, for messengers that show another markup.
    private static func unmarked(_ text: String) -> String {
        text.replacing("**", with: "").replacing("`", with: "")
    }
}
