/// What a notice is about; the wire names are those of docs/PROTOCOL.md §6.
enum NoticeKind: Sendable, Equatable {
    case error
    case aborted
    case retry
    case retryFailed
    case compaction
    case extensionError
    case info
    /// A kind this version does not know; shown like `info`.
    case other(String)

    init(wireName: String) {
        switch wireName {
        case "error": self = .error
        case "aborted": self = .aborted
        case "retry": self = .retry
        case "retry-failed": self = .retryFailed
        case "compaction": self = .compaction
        case "extension-error": self = .extensionError
        case "info": self = .info
        default: self = .other(wireName)
        }
    }
}
