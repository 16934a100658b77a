import MessengerKit

/// Paces Web API calls so normal traffic never meets a 429: a token bucket per method (per
/// channel for posting) sized by its tier, plus the holds a 429's `Retry-After` sets on a method.
/// Pure: callers pass the time (seconds since 1970), tests a fake one. Codable, so holds
/// survive a restart (the spec: keep the deadline across a plugin restart), and so do the
/// buckets of Tier 1 methods, whose minute is longer than a restart. A restarted plugin does not
/// know what its predecessor just called, so its other buckets fill from its start instead of
/// starting full.
struct MethodPacer: QueuePacer, Equatable {
    struct Bucket: Codable, Sendable, Equatable {
        var tokens: Double
        var at: Double
    }

    var buckets: [String: Bucket] = [:]
    /// A method may not be called before this time.
    var holds: [String: Double] = [:]
    /// When this process started pacing.
    var startedAt: Double = 0

    /// The bucket a call of `method` (to `channel`) draws on: the method's, or for posting the
    /// method's in that channel (`chat.postMessage/C0123`); nil for a method Slack barely limits.
    static func key(method: String, channel: String?) -> String? {
        guard let tier = MethodTier.of(method) else { return nil }
        return tier.perChannel ? method + "/" + (channel ?? "") : method
    }

    /// Seconds until a call of `method` (to `channel`) may go, taking nothing (the send queue
    /// asks before it takes).
    func wait(method: String, channel: String?, now: Double) -> Double {
        let hold = holdLeft(method: method, now: now)
        guard let tier = MethodTier.of(method), let key = Self.key(method: method, channel: channel) else { return hold }
        let tokens = refilled(buckets[key], tier: tier, now: now).tokens
        return max(tokens >= 1 ? 0 : (1 - tokens) / tier.perSecond, hold)
    }

    /// Takes a call of `method` (to `channel`) and returns how long to wait before making it.
    mutating func reserve(method: String, channel: String?, now: Double) -> Double {
        let hold = holdLeft(method: method, now: now)
        guard let tier = MethodTier.of(method), let key = Self.key(method: method, channel: channel) else { return hold }
        var bucket = refilled(buckets[key], tier: tier, now: now)
        bucket.tokens -= 1
        buckets[key] = bucket
        if buckets.count > 2000 { buckets = buckets.filter { now - $0.value.at < 120 } }
        let wait = bucket.tokens >= 0 ? 0 : -bucket.tokens / tier.perSecond
        return max(wait, hold)
    }

    /// A bucket filled for the time since it was last used. A Tier 1 bucket is saved whenever it
    /// is used, so one not on file was not spent; another starts filling at this process's start.
    private func refilled(_ bucket: Bucket?, tier: MethodTier, now: Double) -> Bucket {
        let fresh = tier == .tier1 ? tier.burst : min(tier.burst, max(0, now - startedAt) * tier.perSecond)
        var bucket = bucket ?? Bucket(tokens: fresh, at: now)
        bucket.tokens = min(tier.burst, bucket.tokens + max(0, now - bucket.at) * tier.perSecond)
        bucket.at = now
        return bucket
    }

    /// How long `method` is still held by a 429 (0 when it is free).
    func holdLeft(method: String, now: Double) -> Double { max(0, (holds[method] ?? 0) - now) }

    /// A 429: no call of `method` for `seconds`.
    mutating func hold(method: String, seconds: Double, now: Double) {
        holds[method] = max(holds[method] ?? 0, now + seconds)
        holds = holds.filter { $0.value > now }
    }

    /// A restarted plugin keeps the Tier 1 buckets its predecessor spent: their minute is longer
    /// than a restart.
    mutating func keep(from saved: MethodPacer) {
        buckets = saved.buckets
    }

    /// What is worth saving: the holds still running and the Tier 1 buckets.
    func saved(now: Double) -> MethodPacer {
        var copy = MethodPacer()
        copy.holds = holds.filter { $0.value > now }
        copy.buckets = buckets.filter { MethodTier.of($0.key) == .tier1 }
        return copy
    }

    /// The send queue's key for a bucket (`key(method:channel:)`) back into its method and channel
    /// (method names have no slash).
    static func split(_ key: String) -> (method: String, channel: String?) {
        guard let slash = key.firstIndex(of: "/") else { return (key, nil) }
        return (String(key[..<slash]), String(key[key.index(after: slash)...]))
    }

    func wait(key: String, now: Double) -> Double {
        let (method, channel) = Self.split(key)
        return wait(method: method, channel: channel, now: now)
    }

    mutating func take(key: String, now: Double) {
        let (method, channel) = Self.split(key)
        _ = reserve(method: method, channel: channel, now: now)
    }
}
