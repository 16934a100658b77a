/// `assistantMessageEvent.type` inside `message_update`.
package enum PiAssistantMessageEventType: PiWireName {
    case textStart
    case textDelta
    case textEnd
    case thinkingStart
    case thinkingDelta
    case thinkingEnd
    case toolcallStart
    case toolcallDelta
    case toolcallEnd
    /// `start`, `done` and `error` are turned into message_start/message_end by pi's agent loop,
    /// so they should never appear; they are mapped anyway in case a version forwards them.
    case start
    case done
    case error
    case other(String)

    package static let known: [PiAssistantMessageEventType] = [
        .textStart, .textDelta, .textEnd, .thinkingStart, .thinkingDelta, .thinkingEnd,
        .toolcallStart, .toolcallDelta, .toolcallEnd, .start, .done, .error,
    ]

    package var otherName: String? {
        if case .other(let name) = self { name } else { nil }
    }

    package var staticWireName: StaticString? {
        switch self {
        case .textStart: "text_start"
        case .textDelta: "text_delta"
        case .textEnd: "text_end"
        case .thinkingStart: "thinking_start"
        case .thinkingDelta: "thinking_delta"
        case .thinkingEnd: "thinking_end"
        case .toolcallStart: "toolcall_start"
        case .toolcallDelta: "toolcall_delta"
        case .toolcallEnd: "toolcall_end"
        case .start: "start"
        case .done: "done"
        case .error: "error"
        case .other: nil
        }
    }
}
