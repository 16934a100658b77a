import PiRelaySDK

/// A notice as one short line with a mark of its own, so errors, aborts, compactions and
/// retries stand out from the answer text.
struct NoticeLine {
    let kind: NoticeKind
    let text: String

    var prefix: String {
        switch kind {
        case .error: return "⚠️ Error"
        case .aborted: return "⏹ Aborted"
        case .retry: return "🔁 Retrying"
        case .retryFailed: return "⚠️ Retries exhausted"
        case .compaction: return "🗜 Compaction"
        case .extensionError: return "⚠️ Extension error"
        case .question: return "❓ Question"
        case .info, .other: return "ℹ️"
        }
    }

    /// Redacted, on one line, at most `width` characters of text after the prefix.
    func rendered(width: Int, redactor: Redactor) -> String {
        let body = redactor.redact(text).collapsedWhitespace.elidingMiddle(to: width)
        guard !body.isEmpty else { return prefix }
        switch kind {
        case .info, .other: return prefix + " " + body
        default: return prefix + ": " + body
        }
    }
}
