/// A platform's budget for writes, as the messenger's pacer keeps it (Telegram's per-chat and
/// global buckets, holds after a 429). Called with the time in seconds since 1970.
public protocol SendAllowance: Sendable {
    /// Seconds until a write to `chat` may go (0 or less: now), taking nothing.
    func wait(chat: String, now: Double) -> Double
    /// Seconds until a write to `chat` may go and still leave `spare` writes of the chat's budget
    /// for the writes someone waits on (`SendQueue` asks it for live views and notices).
    func wait(chat: String, now: Double, keeping spare: Int) -> Double
    /// A write to `chat` goes now: it takes its place in the budget.
    func take(chat: String, now: Double)
}

extension SendAllowance {
    /// A budget with no room to spare (a burst of one) keeps nothing back.
    public func wait(chat: String, now: Double, keeping spare: Int) -> Double { wait(chat: chat, now: now) }
}
