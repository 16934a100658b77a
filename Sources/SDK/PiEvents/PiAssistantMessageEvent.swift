/// What the relay keeps of `message_update`: its `assistantMessageEvent` minus the `partial`
/// message (the relay rebuilds text from deltas instead of re-reading it on every line).
public struct PiAssistantMessageEvent: Sendable, Hashable {
    public var type: PiAssistantMessageEventType?
    /// Index of the content block the event belongs to.
    public var contentIndex: Int?
    /// `text_delta`/`thinking_delta`: the new text; `toolcall_delta`: a raw fragment of argument JSON.
    public var delta: String?
    /// `text_end`/`thinking_end`: the whole block's text.
    public var content: String?
    /// `toolcall_end`: the finished call.
    public var toolCall: PiToolCall?

    public init(type: PiAssistantMessageEventType? = nil, contentIndex: Int? = nil, delta: String? = nil,
                content: String? = nil, toolCall: PiToolCall? = nil) {
        self.type = type
        self.contentIndex = contentIndex
        self.delta = delta
        self.content = content
        self.toolCall = toolCall
    }
}
