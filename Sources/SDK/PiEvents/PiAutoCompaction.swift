/// `auto_compaction_start` (`reason`) and `auto_compaction_end` (`aborted`, `willRetry`,
/// `errorMessage`). The end's `result` is not kept.
public struct PiAutoCompaction: Sendable, Hashable {
    /// `threshold` or `overflow`.
    public var reason: String?
    public var aborted: Bool?
    /// True when pi restarts the run after an overflow compaction: the run is not over.
    public var willRetry: Bool?
    public var errorMessage: String?

    public init(reason: String? = nil, aborted: Bool? = nil, willRetry: Bool? = nil, errorMessage: String? = nil) {
        self.reason = reason
        self.aborted = aborted
        self.willRetry = willRetry
        self.errorMessage = errorMessage
    }
}
