import MessengerKit

/// Paces Web API calls so normal traffic never meets a 429: a token bucket per method (per
/// channel for posting) sized by its tier, plus the holds a 429's `Retry-After` sets on a method.
/// Pure: callers pass the time (seconds since 1970), tests a fake one. Codable, so holds
/// survive a restart (the spec: keep the deadline across a plugin restart), and so do the
/// buckets not yet full again: every bucket is saved when it is spent (`WebAPI`), so a restarted
/// plugin neither bursts into a method its predecessor just used (429s) nor waits for one it had
/// not (a slow start), and Tier 1's minute outlives any restart.
struct MethodPacer: QueuePacer, Equatable {
    struct Bucket: Codable, Sendable, Equatable {
        var tokens: Double
        var at: Double
    }

    var buckets: [String: Bucket] = [:]
    /// A method may not be called before this time.
    var holds: [String: Double] = [:]
    /// Methods a 429 held, until a call of one is answered: whether such a call is out. While
    /// one is, no other call of the method goes: it would reach Slack before the answer says
    /// whether the limit is over, inside the window a new 429 may have announced. Not saved: a
    /// restarted plugin's first call after a saved hold is the only one out anyway.
    var trying: [String: Bool] = [:]
    /// How long a call waits for the answer to the one out after a 429 before it asks again
    /// (the answer refreshes the send queue sooner).
    static let answerWait = 1.0

    enum CodingKeys: String, CodingKey {
        case buckets, holds
    }

    /// The bucket a call of `method` (to `channel`) draws on: the method's, or for posting the
    /// method's in that channel (`chat.postMessage/C0123`); nil for a method Slack barely limits.
    static func key(method: String, channel: String?) -> String? {
        guard let tier = MethodTier.of(method) else { return nil }
        return tier.perChannel ? method + "/" + (channel ?? "") : method
    }

    /// Seconds until a call of `method` (to `channel`) may go, taking nothing (the send queue
    /// asks before it takes), and leave calls of the bucket for more urgent ones when `spare`
    /// asks for any: at least `spare`, and the tier's `reserve` (a live edit leaves three of
    /// chat.update's four for finals).
    func wait(method: String, channel: String?, now: Double, keeping spare: Int = 0) -> Double {
        var hold = holdLeft(method: method, now: now)
        if trying[method] == true { hold = max(hold, Self.answerWait) }
        guard let tier = MethodTier.of(method), let key = Self.key(method: method, channel: channel) else { return hold }
        let tokens = refilled(buckets[key], tier: tier, now: now).tokens
        let needed = min(tier.burst, 1 + (spare > 0 ? max(Double(spare), tier.reserve) : 0))
        return max(tokens >= needed ? 0 : (needed - tokens) / tier.perSecond, hold)
    }

    /// Takes a call of `method` (to `channel`) and returns how long to wait before making it.
    mutating func reserve(method: String, channel: String?, now: Double) -> Double {
        let hold = holdLeft(method: method, now: now)
        if trying[method] == false { trying[method] = true }
        guard let tier = MethodTier.of(method), let key = Self.key(method: method, channel: channel) else { return hold }
        var bucket = refilled(buckets[key], tier: tier, now: now)
        bucket.tokens -= 1
        buckets[key] = bucket
        if buckets.count > 2000 { buckets = buckets.filter { now - $0.value.at < 120 } }
        let wait = bucket.tokens >= 0 ? 0 : -bucket.tokens / tier.perSecond
        return max(wait, hold)
    }

    /// Takes a call's place if it may go now (0), or says how long until it may, taking nothing:
    /// a call that never goes (its plugin killed while it waited) has spent nothing, so a plugin
    /// restarted again and again does not push its next connection further away each time.
    mutating func claim(method: String, channel: String?, now: Double) -> Double {
        let wait = wait(method: method, channel: channel, now: now)
        if wait <= 0 { _ = reserve(method: method, channel: channel, now: now) }
        return wait
    }

    /// A bucket filled for the time since it was last used. Every bucket is saved when it is
    /// spent, so one not on file was not spent lately and starts full.
    private func refilled(_ bucket: Bucket?, tier: MethodTier, now: Double) -> Bucket {
        var bucket = bucket ?? Bucket(tokens: tier.burst, at: now)
        bucket.tokens = min(tier.burst, bucket.tokens + max(0, now - bucket.at) * tier.perSecond)
        bucket.at = now
        return bucket
    }

    /// How long `method` is still held by a 429 (0 when it is free).
    func holdLeft(method: String, now: Double) -> Double { max(0, (holds[method] ?? 0) - now) }

    /// A 429: no call of `method` for `seconds`, and then one call at a time at its tier's rate
    /// (its buckets hold one call when the hold ends). Calls that waited out the hold together
    /// would otherwise go together, and the second reach Slack before the first's answer says
    /// whether the limit is over: inside the window a new 429 may have announced.
    mutating func hold(method: String, seconds: Double, now: Double) {
        let end = max(holds[method] ?? 0, now + seconds)
        holds[method] = end
        holds = holds.filter { $0.value > now }
        trying[method] = false
        guard let tier = MethodTier.of(method) else { return }
        for key in buckets.keys where Self.split(key).method == method { buckets[key] = Bucket(tokens: 1, at: end) }
        if !tier.perChannel { buckets[method] = Bucket(tokens: 1, at: end) }
    }

    /// A call of `method` came back: Slack `answered` it (anything but a 429, which `hold`
    /// notes), so its limit is over; or it failed on the way, and the next call tries again.
    mutating func ended(method: String, answered: Bool) {
        guard trying[method] != nil else { return }
        trying[method] = answered ? nil : false
    }

    /// A restarted plugin keeps the buckets its predecessor spent.
    mutating func keep(from saved: MethodPacer) {
        buckets = saved.buckets
    }

    /// What is worth saving: the holds still running and the buckets not full again yet.
    func saved(now: Double) -> MethodPacer {
        var copy = MethodPacer()
        copy.holds = holds.filter { $0.value > now }
        copy.buckets = buckets.filter { key, bucket in
            guard let tier = MethodTier.of(Self.split(key).method) else { return false }
            return bucket.tokens + max(0, now - bucket.at) * tier.perSecond < tier.burst
        }
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

    func wait(key: String, now: Double, keeping spare: Int) -> Double {
        let (method, channel) = Self.split(key)
        return wait(method: method, channel: channel, now: now, keeping: spare)
    }

    mutating func take(key: String, now: Double) {
        let (method, channel) = Self.split(key)
        _ = reserve(method: method, channel: channel, now: now)
    }
}
