/// `auto_retry_start` (`attempt`, `maxAttempts`, `delayMs`, `errorMessage`) and `auto_retry_end`
/// (`success`, `attempt`, `finalError`).
public struct PiAutoRetry: Sendable, Hashable {
    public var attempt: Int?
    public var maxAttempts: Int?
    public var delayMs: Int?
    public var errorMessage: String?
    public var success: Bool?
    public var finalError: String?

    public init(attempt: Int? = nil, maxAttempts: Int? = nil, delayMs: Int? = nil, errorMessage: String? = nil,
                success: Bool? = nil, finalError: String? = nil) {
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.delayMs = delayMs
        self.errorMessage = errorMessage
        self.success = success
        self.finalError = finalError
    }
}
