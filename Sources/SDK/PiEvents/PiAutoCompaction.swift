/// `auto_compaction_start` (`reason`) and `auto_compaction_end` (`aborted`, `willRetry`,
/// `errorMessage`). The end's `result` is not kept.
package struct PiAutoCompaction: Sendable, Hashable {
    /// `threshold` or `overflow`.
    package var reason: String?
    package var aborted: Bool?
    /// True when pi restarts the run after an overflow compaction: the run is not over.
    package var willRetry: Bool?
    package var errorMessage: String?

    package init(reason: String? = nil, aborted: Bool? = nil, willRetry: Bool? = nil, errorMessage: String? = nil) {
        self.reason = reason
        self.aborted = aborted
        self.willRetry = willRetry
        self.errorMessage = errorMessage
    }
}
