/// A bucket with nothing left until it resets, as a restarted plugin must learn it: the old
/// instance may have used up a window the new one knows nothing about, and its first request
/// would draw a 429. Saved in the state directory with a wall-clock end; see `RateLimiter.holds`.
struct RateLimitHold: Codable, Equatable, Sendable {
    var route: String
    var hash: String
    var major: String
    /// Seconds since 1970 when the bucket resets.
    var until: Double

    static let file = "ratelimits.json"
}
