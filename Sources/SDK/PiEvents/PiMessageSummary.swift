/// What the relay keeps of `message_start` / `message_end`.`message`: never usage, content
/// signatures, images or tool calls.
package struct PiMessageSummary: Sendable, Hashable {
    /// `user`, `assistant`, `toolResult`, or an extension role such as `custom`.
    package var role: String?
    /// Assistant only: `stop`, `length`, `toolUse`, `error` or `aborted`.
    package var stopReason: String?
    package var errorMessage: String?
    /// Assistant only: the `text` content blocks concatenated in order (no separator added), nil
    /// when there are none. On `message_end` this is the final answer.
    package var text: String?

    package init(role: String? = nil, stopReason: String? = nil, errorMessage: String? = nil, text: String? = nil) {
        self.role = role
        self.stopReason = stopReason
        self.errorMessage = errorMessage
        self.text = text
    }
}
