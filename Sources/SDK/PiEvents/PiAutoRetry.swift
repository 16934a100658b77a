/// `auto_retry_start` (`attempt`, `maxAttempts`, `delayMs`, `errorMessage`) and `auto_retry_end`
/// (`success`, `attempt`, `finalError`).
package struct PiAutoRetry: Sendable, Hashable {
    package var attempt: Int?
    package var maxAttempts: Int?
    package var delayMs: Int?
    package var errorMessage: String?
    package var success: Bool?
    package var finalError: String?

    package init(
        attempt: Int? = nil, maxAttempts: Int? = nil, delayMs: Int? = nil, errorMessage: String? = nil,
        success: Bool? = nil, finalError: String? = nil
    ) {
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.delayMs = delayMs
        self.errorMessage = errorMessage
        self.success = success
        self.finalError = finalError
    }
}
