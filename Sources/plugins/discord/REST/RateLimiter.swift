import PiRelaySDK

/// Discord's HTTP rate limits as a pure state machine: no I/O and no clock of its own. The REST
/// client asks `acquire` before every request and reports each response to `complete`; both
/// return what to do next. Tests drive it with made-up instants.
///
/// Model: per-route buckets learned from X-RateLimit-* headers, keyed by bucket hash and major
/// parameter; until a route's bucket is known only one request on it is in flight, so the first
/// burst cannot overshoot a limit nobody told us yet. The global limit is a sliding window kept
/// below Discord's 50/s, and a 429 blocks its bucket (or everything, when global) for retry_after.
struct RateLimiter: Sendable {
    typealias Instant = ContinuousClock.Instant

    enum Decision: Equatable, Sendable {
        case send(Ticket)
        case wait(until: Instant)
    }

    enum Verdict: Equatable, Sendable {
        case done
        /// The request got a 429: send it again at this instant (acquiring anew).
        case retry(at: Instant)
    }

    struct Ticket: Hashable, Sendable {
        let serial: Int
        let key: RouteKey
        let bucket: BucketKey?
    }

    struct Bucket: Equatable, Sendable {
        var limit: Int
        /// Requests still allowed in the current window, already reduced for those in flight.
        var remaining: Int
        /// When the window ends; nil after a local reset until a response names the new window.
        var resetAt: Instant?
        var inFlight = 0
    }

    /// Requests per `globalWindow`. Discord allows 50/s; the margin absorbs network jitter between
    /// our send times and the server's arrival times.
    var globalLimit = 45
    var globalWindow: Duration = .seconds(1)
    /// Added to every reset time we compute, against rounding in the headers.
    var safety: Duration = .milliseconds(60)
    /// How long to wait before asking again when only a response in flight can tell.
    var poll: Duration = .milliseconds(50)

    private(set) var buckets: [BucketKey: Bucket] = [:]
    private(set) var routeBuckets: [String: String] = [:]
    private var unknownInFlight: [RouteKey: Int] = [:]
    private var routeBlockedUntil: [RouteKey: Instant] = [:]
    private var globalSends: [Instant] = []
    private var globalBlockedUntil: Instant?
    private var serial = 0

    init() {}

    /// May a request on `key` go out now? `global` is false for routes exempt from the global
    /// limit (interaction callbacks).
    mutating func acquire(_ key: RouteKey, global: Bool, now: Instant) -> Decision {
        if global {
            if let until = globalBlockedUntil {
                if now < until { return .wait(until: until) }
                globalBlockedUntil = nil
            }
            globalSends.removeAll { $0 + globalWindow <= now }
            if globalSends.count >= globalLimit, let oldest = globalSends.first {
                return .wait(until: oldest + globalWindow)
            }
        }
        if let until = routeBlockedUntil[key] {
            if now < until { return .wait(until: until) }
            routeBlockedUntil[key] = nil
        }
        let ticket: Ticket
        if let hash = routeBuckets[key.route] {
            let bk = BucketKey(hash: hash, major: key.major)
            if var bucket = buckets[bk] {
                if let reset = bucket.resetAt, now >= reset {
                    bucket.remaining = bucket.limit - bucket.inFlight
                    bucket.resetAt = nil
                }
                guard bucket.remaining > 0 else {
                    buckets[bk] = bucket
                    return .wait(until: bucket.resetAt ?? now + poll)
                }
                bucket.remaining -= 1
                bucket.inFlight += 1
                buckets[bk] = bucket
                ticket = nextTicket(key, bk)
            } else {
                // Route known, but not for this major value yet: learn it with one request.
                guard unknownInFlight[key, default: 0] == 0 else { return .wait(until: now + poll) }
                unknownInFlight[key, default: 0] += 1
                ticket = nextTicket(key, nil)
            }
        } else {
            guard unknownInFlight[key, default: 0] == 0 else { return .wait(until: now + poll) }
            unknownInFlight[key, default: 0] += 1
            ticket = nextTicket(key, nil)
        }
        if global { globalSends.append(now) }
        return .send(ticket)
    }

    /// What is left of `key`'s bucket, as Discord's last answer on it said, and when it refills
    /// (nil before a response has named the bucket).
    func room(_ key: RouteKey, now: Instant) -> (remaining: Int, resetAt: Instant)? {
        guard let hash = routeBuckets[key.route], let bucket = buckets[BucketKey(hash: hash, major: key.major)],
            let reset = bucket.resetAt, reset > now
        else { return nil }
        return (bucket.remaining, reset)
    }

    /// The response to `ticket` arrived.
    mutating func complete(_ ticket: Ticket, _ info: RateLimitInfo, now: Instant) -> Verdict {
        release(ticket)
        var bk: BucketKey?
        if let hash = info.bucket {
            routeBuckets[ticket.key.route] = hash
            bk = BucketKey(hash: hash, major: ticket.key.major)
        } else {
            bk = ticket.bucket
        }
        if let bk, let limit = info.limit, let remaining = info.remaining, let after = info.resetAfter {
            learn(bk, limit: limit, remaining: remaining, resetAt: now + .seconds(after) + safety)
        }
        guard info.status == 429 else { return .done }
        let wait = Duration.seconds(max(info.retryAfter ?? info.resetAfter ?? 1, 0)) + safety
        let until = now + wait
        if info.global {
            globalBlockedUntil = max(globalBlockedUntil ?? until, until)
        } else if let bk, var bucket = buckets[bk] {
            bucket.remaining = 0
            bucket.resetAt = max(bucket.resetAt ?? until, until)
            buckets[bk] = bucket
        } else {
            routeBlockedUntil[ticket.key] = max(routeBlockedUntil[ticket.key] ?? until, until)
        }
        return .retry(at: until)
    }

    /// What a restarted plugin needs so its first requests draw no 429 (`restore`): the buckets
    /// used up until their reset and the requests of the current global window. `wallNow` is the
    /// wall clock at `now`.
    func holds(now: Instant, wallNow: Double) -> RateLimitHold {
        var out = RateLimitHold()
        for (route, hash) in routeBuckets {
            for (bk, bucket) in buckets where bk.hash == hash && bucket.remaining == 0 {
                guard let reset = bucket.resetAt, reset > now else { continue }
                out.buckets.append(.init(route: route, hash: hash, major: bk.major, until: wallNow + (reset - now).inSeconds))
            }
        }
        out.buckets.sort { ($0.route, $0.major) < ($1.route, $1.major) }
        out.globalSends = globalSends.filter { $0 + globalWindow > now }.map { wallNow - (now - $0).inSeconds }
        return out
    }

    /// How many requests of the global window are in flight or sent: a busy window is worth
    /// saving (`holds`) even when no bucket is used up.
    func globalLoad(now: Instant) -> Int {
        globalSends.reduce(0) { $1 + globalWindow > now ? $0 + 1 : $0 }
    }

    /// Takes over what a previous instance saved: each bucket still used up waits for its reset,
    /// then sends one request to learn the real limit; its recent requests count against the
    /// global window.
    mutating func restore(_ hold: RateLimitHold, now: Instant, wallNow: Double) {
        for held in hold.buckets where held.until > wallNow {
            routeBuckets[held.route] = held.hash
            let bk = BucketKey(hash: held.hash, major: held.major)
            let reset = now + .seconds(held.until - wallNow)
            if var bucket = buckets[bk] {
                bucket.remaining = 0
                bucket.resetAt = max(bucket.resetAt ?? reset, reset)
                buckets[bk] = bucket
            } else {
                buckets[bk] = Bucket(limit: 1, remaining: 0, resetAt: reset)
            }
        }
        let window = globalWindow.inSeconds
        let recent = hold.globalSends.filter { $0 <= wallNow && wallNow - $0 < window }
        globalSends = (recent.map { now - .seconds(wallNow - $0) } + globalSends).sorted()
    }

    /// The request failed without a response (it may or may not have reached Discord).
    mutating func abandon(_ ticket: Ticket) {
        release(ticket)
    }

    private mutating func learn(_ bk: BucketKey, limit: Int, remaining: Int, resetAt: Instant) {
        guard var bucket = buckets[bk] else {
            buckets[bk] = Bucket(limit: limit, remaining: max(0, remaining), resetAt: resetAt)
            return
        }
        // What the server has left, minus what we sent that it has not counted yet.
        let serverView = max(0, remaining - bucket.inFlight)
        if let known = bucket.resetAt, resetAt > known + .seconds(1) {
            // Clearly a later window than the one we were counting: the server knows best.
            bucket.remaining = serverView
        } else {
            bucket.remaining = min(bucket.remaining, serverView)
        }
        bucket.limit = limit
        bucket.resetAt = max(bucket.resetAt ?? resetAt, resetAt)
        buckets[bk] = bucket
    }

    private mutating func release(_ ticket: Ticket) {
        if let bk = ticket.bucket, var bucket = buckets[bk] {
            bucket.inFlight = max(0, bucket.inFlight - 1)
            buckets[bk] = bucket
        } else if ticket.bucket == nil {
            let inFlight = unknownInFlight[ticket.key, default: 0] - 1
            unknownInFlight[ticket.key] = inFlight > 0 ? inFlight : nil
        }
    }

    private mutating func nextTicket(_ key: RouteKey, _ bucket: BucketKey?) -> Ticket {
        serial += 1
        return Ticket(serial: serial, key: key, bucket: bucket)
    }
}
