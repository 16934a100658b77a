/// What the relay keeps of `message_update`: its `assistantMessageEvent` minus the `partial`
/// message (the relay rebuilds text from deltas instead of re-reading it on every line).
package struct PiAssistantMessageEvent: Sendable, Hashable {
    package var type: PiAssistantMessageEventType?
    /// Index of the content block the event belongs to.
    package var contentIndex: Int?
    /// `text_delta`/`thinking_delta`: the new text; `toolcall_delta`: a raw fragment of argument JSON.
    package var delta: String?
    /// `text_end`/`thinking_end`: the whole block's text.
    package var content: String?
    /// `toolcall_end`: the finished call.
    package var toolCall: PiToolCall?

    package init(
        type: PiAssistantMessageEventType? = nil, contentIndex: Int? = nil, delta: String? = nil,
        content: String? = nil, toolCall: PiToolCall? = nil
    ) {
        self.type = type
        self.contentIndex = contentIndex
        self.delta = delta
        self.content = content
        self.toolCall = toolCall
    }
}
