/// What a restarted plugin must know of the limits its killed predecessor used up: buckets with
/// nothing left until they reset, and the requests it sent within the last global window. Without
/// them the new instance's first requests draw 429s (a used-up bucket; or its own 45 requests on
/// top of the old one's, past Discord's 50 per second). Saved in the state directory with
/// wall-clock times; see `RateLimiter.holds` and `restore`.
struct RateLimitHold: Codable, Equatable, Sendable {
    struct Bucket: Codable, Equatable, Sendable {
        var route: String
        var hash: String
        var major: String
        /// Seconds since 1970 when the bucket resets.
        var until: Double
    }

    var buckets: [Bucket] = []
    /// When each request of the last global window went out, seconds since 1970.
    var globalSends: [Double] = []

    static let file = "ratelimits.json"
}
