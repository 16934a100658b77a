/// The rate-limit facts of one response, from its X-RateLimit-* headers and, for a 429, its body.
struct RateLimitInfo: Sendable, Equatable {
    var status: Int
    var bucket: String?
    var limit: Int?
    var remaining: Int?
    /// Seconds until the bucket's window resets (X-RateLimit-Reset-After).
    var resetAfter: Double?
    /// Seconds to wait after a 429 (body `retry_after`, else the Retry-After header).
    var retryAfter: Double?
    /// A 429 from the global limit, which blocks every non-exempt route.
    var global: Bool = false

    init(
        status: Int, bucket: String? = nil, limit: Int? = nil, remaining: Int? = nil,
        resetAfter: Double? = nil, retryAfter: Double? = nil, global: Bool = false
    ) {
        self.status = status
        self.bucket = bucket
        self.limit = limit
        self.remaining = remaining
        self.resetAfter = resetAfter
        self.retryAfter = retryAfter
        self.global = global
    }
}
