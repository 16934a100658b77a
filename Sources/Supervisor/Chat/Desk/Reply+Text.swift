import PiRelaySDK

extension Reply {
    /// A reply of text alone.
    package init(_ text: String, ephemeral: Bool = false) {
        self.init(text: text, ephemeral: ephemeral)
    }

    package static let notAuthorized = Reply("Not authorized.", ephemeral: true)

    /// What a question's answer (or cancel) is told: the same fact `chat.question.closed` then
    /// shows on the question's message, so a messenger may skip posting it (one write, not two).
    package static func closedQuestion(_ text: String) -> Reply {
        Reply(text: text, ephemeral: true, questionClosed: true)
    }

    /// Discord, the strictest messenger, shows at most 80 characters on a button.
    package static let maxLabelLength = 80
}
