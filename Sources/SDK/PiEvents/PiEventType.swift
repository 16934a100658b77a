/// The `type` of a line on pi's stdout (spec §3): responses, extension UI requests and events.
package enum PiEventType: PiWireName {
    case response
    case extensionUIRequest
    case agentStart
    case agentEnd
    case turnStart
    case turnEnd
    case messageStart
    case messageUpdate
    case messageEnd
    case toolExecutionStart
    case toolExecutionUpdate
    case toolExecutionEnd
    case autoCompactionStart
    case autoCompactionEnd
    case autoRetryStart
    case autoRetryEnd
    case extensionError
    /// A type this reader does not know (a newer pi); the event carries no payload.
    case other(String)

    package static let known: [PiEventType] = [
        .response, .extensionUIRequest, .agentStart, .agentEnd, .turnStart, .turnEnd, .messageStart,
        .messageUpdate, .messageEnd, .toolExecutionStart, .toolExecutionUpdate, .toolExecutionEnd,
        .autoCompactionStart, .autoCompactionEnd, .autoRetryStart, .autoRetryEnd, .extensionError,
    ]

    package var otherName: String? {
        if case .other(let name) = self { name } else { nil }
    }

    package var staticWireName: StaticString? {
        switch self {
        case .response: "response"
        case .extensionUIRequest: "extension_ui_request"
        case .agentStart: "agent_start"
        case .agentEnd: "agent_end"
        case .turnStart: "turn_start"
        case .turnEnd: "turn_end"
        case .messageStart: "message_start"
        case .messageUpdate: "message_update"
        case .messageEnd: "message_end"
        case .toolExecutionStart: "tool_execution_start"
        case .toolExecutionUpdate: "tool_execution_update"
        case .toolExecutionEnd: "tool_execution_end"
        case .autoCompactionStart: "auto_compaction_start"
        case .autoCompactionEnd: "auto_compaction_end"
        case .autoRetryStart: "auto_retry_start"
        case .autoRetryEnd: "auto_retry_end"
        case .extensionError: "extension_error"
        case .other: nil
        }
    }
}
