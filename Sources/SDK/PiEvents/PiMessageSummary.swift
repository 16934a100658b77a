/// What the relay keeps of `message_start` / `message_end`.`message`: never content signatures,
/// images or tool calls.
package struct PiMessageSummary: Sendable, Hashable {
    /// `user`, `assistant`, `toolResult`, or an extension role such as `custom`.
    package var role: String?
    /// Assistant only: `stop`, `length`, `toolUse`, `error` or `aborted`.
    package var stopReason: String?
    package var errorMessage: String?
    /// Assistant and user: the `text` content blocks concatenated in order (no separator added),
    /// nil when there are none. On an assistant's `message_end` this is the final answer; a user's
    /// is the prompt pi took (a queued follow-up, when it is delivered).
    package var text: String?
    /// Assistant only: `usage` as pi wrote it (`{input, output, …, cost: {total}}`), unparsed.
    package var usage: PiRawJSON?

    package init(
        role: String? = nil, stopReason: String? = nil, errorMessage: String? = nil, text: String? = nil, usage: PiRawJSON? = nil
    ) {
        self.role = role
        self.stopReason = stopReason
        self.errorMessage = errorMessage
        self.text = text
        self.usage = usage
    }
}
