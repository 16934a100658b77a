import MessengerKit

/// Paces writes (sends and edits count alike, as Telegram counts them) so normal traffic never
/// meets a 429: a token bucket per chat (about 1 a second in private chats, 20 a minute in
/// groups) and one for the whole bot (30 a second), plus the holds a 429's `retry_after` sets.
/// Pure: callers pass the time (seconds since 1970), tests a fake one. Codable, so holds and the
/// chats' spent buckets survive a restart: a plugin restarted mid-answer neither bursts into a
/// chat it just wrote to (a 429) nor waits for a chat it had not (a second lost per restart).
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
    var global = Bucket(tokens: SendPacer.globalRate, at: 0)
    /// A chat (or `*`, every chat) may not be written to before this time.
    var holds: [String: Double] = [:]

    /// Takes a write for `chat` and returns how long to wait before doing it (0: at once). A
    /// group is a chat whose id is negative.
    mutating func reserve(chat: String, now: Double) -> Double {
        let rate = chat.hasPrefix("-") ? Self.groupRate : Self.privateRate
        var bucket = buckets[chat] ?? Bucket(tokens: Self.burst, at: now)
        bucket.tokens = min(Self.burst, bucket.tokens + max(0, now - bucket.at) * rate)
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

    /// How long until a write to `chat` may go (0: now), taking nothing: the chat's bucket must
    /// hold a whole write and `spare` more (at most the burst's room: a live edit leaves one for
    /// a question), the bot's a whole write, and no 429 hold may be running.
    func wait(chat: String, now: Double, keeping spare: Int = 0) -> Double {
        let rate = chat.hasPrefix("-") ? Self.groupRate : Self.privateRate
        let bucket = buckets[chat] ?? Bucket(tokens: Self.burst, at: now)
        let tokens = min(Self.burst, bucket.tokens + max(0, now - bucket.at) * rate)
        let needed = min(Self.burst, 1 + Double(spare))
        var wait = tokens >= needed ? 0 : (needed - tokens) / rate
        let global = min(Self.globalRate, self.global.tokens + (now - self.global.at) * Self.globalRate)
        if global < 1 { wait = max(wait, (1 - global) / Self.globalRate) }
        return max(wait, holdLeft(chat: chat, now: now))
    }

    /// How long `chat` is still held by a 429 (0 when it is free).
    func holdLeft(chat: String, now: Double) -> Double {
        max(0, (holds[chat] ?? 0) - now)
    }

    /// A 429: nothing more to that chat (or of that chat-less method, `BotAPI.methodHold`) for
    /// `seconds`.
    mutating func hold(chat: String, seconds: Double, now: Double) {
        holds[chat] = max(holds[chat] ?? 0, now + seconds)
        holds = holds.filter { $0.value > now }
        if buckets.count > 1000 { buckets = buckets.filter { now - $0.value.at < 60 } }
    }

    /// What is worth saving: the holds still running, and the chats' buckets not full again yet.
    func saved(now: Double) -> SendPacer {
        var copy = SendPacer()
        copy.holds = holds.filter { $0.value > now }
        copy.buckets = buckets.filter { chat, bucket in
            bucket.tokens + max(0, now - bucket.at) * (chat.hasPrefix("-") ? Self.groupRate : Self.privateRate) < Self.burst
        }
        return copy
    }

    /// A restarted plugin keeps the buckets its predecessor spent.
    mutating func keep(from saved: SendPacer) {
        buckets = saved.buckets
    }

    func wait(key chat: String, now: Double) -> Double { wait(chat: chat, now: now) }

    func wait(key chat: String, now: Double, keeping spare: Int) -> Double { wait(chat: chat, now: now, keeping: spare) }

    mutating func take(key chat: String, now: Double) { _ = reserve(chat: chat, now: now) }
}
