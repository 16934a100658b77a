import PiRelaySDK

/// Guided answers (issue 17 point 7): a final answer that ends with options or a question gets
/// a line of buttons under it, one per option and **Custom answer**.
extension ChatDelivery {
    package func offerChoice(_ run: RunRecord, to targets: [Binding]) async {
        guard !targets.isEmpty, run.errorMessage == nil, run.stopReason == nil || run.stopReason == "stop",
            let choice = GuidedChoice.parse(run.text)
        else { return }
        let token = await guided.offer(choice, session: run.sessionID)
        let rows = choice.buttons(session: run.sessionID, token: token)
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
