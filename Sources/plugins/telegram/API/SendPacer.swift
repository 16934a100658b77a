import MessengerKit

/// Paces writes (sends and edits count alike, as Telegram counts them) so normal traffic never
/// meets a 429: a token bucket per chat (about 1 a second in private chats, 20 a minute in
/// groups) and one for the whole bot (30 a second), plus the holds a 429's `retry_after` sets.
/// Pure: callers pass the time (seconds since 1970), tests a fake one. Codable, so holds survive
/// a restart, as a 429 ban does.
struct SendPacer: QueuePacer, Equatable {
    struct Bucket: Codable, Sendable, Equatable {
        var tokens: Double
        var at: Double
    }

    static let privateRate = 1.0
    static let groupRate = 1.0 / 3.2
    static let burst = 2.0
    static let globalRate = 25.0

    var buckets: [String: Bucket] = [:]
    /// When this process started pacing: a plugin restarted mid-answer does not know what its
    /// predecessor just wrote, so a chat's first bucket fills from here instead of starting full.
    var startedAt: Double = 0
    var global = Bucket(tokens: SendPacer.globalRate, at: 0)
    /// A chat (or `*`, every chat) may not be written to before this time.
    var holds: [String: Double] = [:]

    /// Takes a write for `chat` and returns how long to wait before doing it (0: at once). A
    /// group is a chat whose id is negative.
    mutating func reserve(chat: String, now: Double) -> Double {
        let rate = chat.hasPrefix("-") ? Self.groupRate : Self.privateRate
        var bucket = buckets[chat] ?? Bucket(tokens: min(Self.burst, max(0, now - startedAt) * rate), at: now)
        bucket.tokens = min(Self.burst, bucket.tokens + (now - bucket.at) * rate)
        bucket.at = now
        bucket.tokens -= 1
        var wait = bucket.tokens >= 0 ? 0 : -bucket.tokens / rate
        buckets[chat] = bucket
        global.tokens = min(Self.globalRate, global.tokens + (now - global.at) * Self.globalRate)
        global.at = now
        global.tokens -= 1
        if global.tokens < 0 { wait = max(wait, -global.tokens / Self.globalRate) }
        return max(wait, holdLeft(chat: chat, now: now))
    }

    /// How long until a write to `chat` may go (0: now), taking nothing: the chat's bucket and
    /// the bot's must each hold a whole write, and no 429 hold may be running.
    func wait(chat: String, now: Double) -> Double {
        let rate = chat.hasPrefix("-") ? Self.groupRate : Self.privateRate
        let bucket = buckets[chat] ?? Bucket(tokens: min(Self.burst, max(0, now - startedAt) * rate), at: now)
        let tokens = min(Self.burst, bucket.tokens + (now - bucket.at) * rate)
        var wait = tokens >= 1 ? 0 : (1 - tokens) / rate
        let global = min(Self.globalRate, self.global.tokens + (now - self.global.at) * Self.globalRate)
        if global < 1 { wait = max(wait, (1 - global) / Self.globalRate) }
        return max(wait, holdLeft(chat: chat, now: now))
    }

    /// How long `chat` is still held by a 429 (0 when it is free).
    func holdLeft(chat: String, now: Double) -> Double {
        max(0, max(holds[chat] ?? 0, holds["*"] ?? 0) - now)
    }

    /// A 429: nothing more to that chat (or everywhere, for `*`) for `seconds`.
    mutating func hold(chat: String, seconds: Double, now: Double) {
        holds[chat] = max(holds[chat] ?? 0, now + seconds)
        holds = holds.filter { $0.value > now }
        if buckets.count > 1000 { buckets = buckets.filter { now - $0.value.at < 60 } }
    }

    /// What is worth saving: the holds still running.
    func saved(now: Double) -> SendPacer {
        var copy = SendPacer()
        copy.holds = holds.filter { $0.value > now }
        return copy
    }

    func wait(key chat: String, now: Double) -> Double { wait(chat: chat, now: now) }

    mutating func take(key chat: String, now: Double) { _ = reserve(chat: chat, now: now) }
}
