extension PiEvent {
    /// The fields kept for each family of types. Types that carry nothing the relay needs
    /// (`agent_start`, `turn_start`, `turn_end`, unknown types, an `agent_end` that did not
    /// fail) have `.none`.
    package enum Payload: Sendable, Hashable {
        case none
        case response(PiResponse)
        case extensionUIRequest(PiExtensionUIRequest)
        /// `message_start` and `message_end`; for an `agent_end` whose last message failed, that
        /// message's outcome.
        case message(PiMessageSummary)
        case messageUpdate(PiAssistantMessageEvent)
        /// `tool_execution_start`, `_update` and `_end`.
        case toolExecution(PiToolExecution)
        /// `auto_compaction_start` and `auto_compaction_end`.
        case autoCompaction(PiAutoCompaction)
        /// `auto_retry_start` and `auto_retry_end`.
        case autoRetry(PiAutoRetry)
        case extensionError(PiExtensionError)
    }
}
