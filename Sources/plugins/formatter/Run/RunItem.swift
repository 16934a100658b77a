/// One entry of a run view, in the order the agent produced them.
enum RunItem: Sendable {
    case text(String)
    case thinking(String)
    /// The calls of one assistant message, in call order; they may have run in parallel.
    case tools([ToolCall])
    case notice(NoticeKind, String)
}
