/// A platform's budget for writes, as the messenger's pacer keeps it (Telegram's per-chat and
/// global buckets, holds after a 429). Called with the time in seconds since 1970.
public protocol SendAllowance: Sendable {
    /// Seconds until a write to `chat` may go (0 or less: now), taking nothing.
    func wait(chat: String, now: Double) -> Double
    /// A write to `chat` goes now: it takes its place in the budget.
    func take(chat: String, now: Double)
}
