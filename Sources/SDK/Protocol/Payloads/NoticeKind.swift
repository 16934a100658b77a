/// What a notice in a run view is about (docs/PROTOCOL.md §6).
public enum NoticeKind: Sendable, Hashable {
    /// The run failed.
    case error
    /// The user stopped it.
    case aborted
    /// pi retries after a provider error.
    case retry
    /// pi gave up retrying.
    case retryFailed
    /// pi compacted the context.
    case compaction
    /// A pi extension failed.
    case extensionError
    /// The agent asks something (a terminal shows it this way; a chat gets buttons).
    case question
    /// Anything else worth saying.
    case info
    /// A kind this version does not know; shown like `info`.
    case other(String)

    /// The kind named on the wire.
    public init(wireName: String) {
        switch wireName {
        case "error": self = .error
        case "aborted": self = .aborted
        case "retry": self = .retry
        case "retry-failed": self = .retryFailed
        case "compaction": self = .compaction
        case "extension-error": self = .extensionError
        case "question": self = .question
        case "info": self = .info
        default: self = .other(wireName)
        }
    }

    /// The wire name, e.g. `retry-failed`.
    public var wireName: String {
        switch self {
        case .error: "error"
        case .aborted: "aborted"
        case .retry: "retry"
        case .retryFailed: "retry-failed"
        case .compaction: "compaction"
        case .extensionError: "extension-error"
        case .question: "question"
        case .info: "info"
        case .other(let name): name
        }
    }
}
