/// How much of a run a chat sees while it goes on (`/progress`).
package enum ProgressMode: String, Codable, Sendable, Equatable, CaseIterable {
    /// The final answer and the agent's questions; no live view, notices or echoes.
    case quiet
    /// The live view, notices, echoes of other chats' prompts, and the final answer.
    case normal
    /// As normal, plus tool output previews and (where the formatter allows) thinking.
    case verbose
    /// One message when the run ends (and the agent's questions, which a run cannot end without).
    case completionOnly = "completion-only"

    /// Whether the chat gets live views, notices and echoes.
    package var showsProgress: Bool { self == .normal || self == .verbose }

    /// What `/progress` says each mode does.
    package var explanation: String {
        switch self {
        case .quiet: "the final answer and questions only"
        case .normal: "the live view, notices and the final answer"
        case .verbose: "the live view with tool output previews and thinking, notices and the final answer"
        case .completionOnly: "one message when a run ends (and questions)"
        }
    }
}
