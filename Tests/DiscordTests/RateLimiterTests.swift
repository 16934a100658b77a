import Foundation
import Testing

@testable import DiscordPlugin

/// The rate limiter with a made-up clock: every instant is `t0 + n ms`.
@Suite("RateLimiter")
struct RateLimiterTests {
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    let create = RouteKey(route: "POST /channels/{channel_id}/messages", major: "100")
    let createOther = RouteKey(route: "POST /channels/{channel_id}/messages", major: "200")
    let edit = RouteKey(route: "PATCH /channels/{channel_id}/messages/{message_id}", major: "100")

    func headers(_ remaining: Int, limit: Int = 5, resetAfter: Double = 5, bucket: String = "b-create") -> RateLimitInfo {
        RateLimitInfo(status: 200, bucket: bucket, limit: limit, remaining: remaining, resetAfter: resetAfter)
    }

    func ticket(_ d: RateLimiter.Decision) throws -> RateLimiter.Ticket {
        guard case .send(let t) = d else { throw Failure("expected send, got \(d)") }
        return t
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    @Test func anUnknownRouteHasOneRequestInFlightUntilItsBucketIsKnown() throws {
        var limiter = RateLimiter()
        let first = try ticket(limiter.acquire(create, global: true, now: at(0)))
        #expect(limiter.acquire(create, global: true, now: at(1)) == .wait(until: at(1) + limiter.poll))
        // Another channel is another major parameter: not held up.
        _ = try ticket(limiter.acquire(createOther, global: true, now: at(1)))
        #expect(limiter.complete(first, headers(4), now: at(20)) == .done)
        _ = try ticket(limiter.acquire(create, global: true, now: at(21)))
    }

    @Test func aLearnedBucketAllowsExactlyItsRemainingThenWaitsForTheReset() throws {
        var limiter = RateLimiter()
        let first = try ticket(limiter.acquire(create, global: true, now: at(0)))
        _ = limiter.complete(first, headers(4, resetAfter: 5), now: at(10))
        for n in 0..<4 { _ = try ticket(limiter.acquire(create, global: true, now: at(11 + n))) }
        let reset = at(10) + .seconds(5) + limiter.safety
        #expect(limiter.acquire(create, global: true, now: at(20)) == .wait(until: reset))
        // After the reset the full limit is available again (minus nothing: all answered).
        _ = try ticket(limiter.acquire(create, global: true, now: reset))
    }

    @Test func requestsInFlightCountAgainstWhatTheServerReports() throws {
        var limiter = RateLimiter()
        let first = try ticket(limiter.acquire(create, global: true, now: at(0)))
        _ = limiter.complete(first, headers(4), now: at(10))
        let a = try ticket(limiter.acquire(create, global: true, now: at(11)))
        let b = try ticket(limiter.acquire(create, global: true, now: at(12)))
        _ = try ticket(limiter.acquire(create, global: true, now: at(13)))
        // The server answered `a` having counted only it: remaining 3, but two more are on their way.
        _ = limiter.complete(a, headers(3), now: at(30))
        #expect(limiter.buckets[BucketKey(hash: "b-create", major: "100")]?.remaining == 1)
        _ = limiter.complete(b, headers(2), now: at(31))
        _ = try ticket(limiter.acquire(create, global: true, now: at(32)))
        guard case .wait = limiter.acquire(create, global: true, now: at(33)) else { throw Failure("expected a wait") }
    }

    @Test func bucketsAreKeptPerMajorParameter() throws {
        var limiter = RateLimiter()
        let a = try ticket(limiter.acquire(create, global: true, now: at(0)))
        _ = limiter.complete(a, headers(0), now: at(5))
        guard case .wait = limiter.acquire(create, global: true, now: at(6)) else { throw Failure("channel 100 is exhausted") }
        let b = try ticket(limiter.acquire(createOther, global: true, now: at(6)))
        _ = limiter.complete(b, headers(4), now: at(9))
        _ = try ticket(limiter.acquire(createOther, global: true, now: at(10)))
    }

    @Test func routesSharingABucketHashShareItsCount() throws {
        var limiter = RateLimiter()
        let a = try ticket(limiter.acquire(create, global: true, now: at(0)))
        _ = limiter.complete(a, headers(1, bucket: "shared"), now: at(5))
        let b = try ticket(limiter.acquire(edit, global: true, now: at(6)))
        _ = limiter.complete(b, headers(0, bucket: "shared"), now: at(9))
        guard case .wait = limiter.acquire(create, global: true, now: at(10)) else { throw Failure("the shared bucket is empty") }
        guard case .wait = limiter.acquire(edit, global: true, now: at(10)) else { throw Failure("the shared bucket is empty") }
    }

    @Test func a429BlocksTheBucketForRetryAfter() throws {
        var limiter = RateLimiter()
        let a = try ticket(limiter.acquire(create, global: true, now: at(0)))
        _ = limiter.complete(a, headers(4, resetAfter: 1), now: at(5))
        let b = try ticket(limiter.acquire(create, global: true, now: at(6)))
        var limited = RateLimitInfo(status: 429, bucket: "b-create", limit: 5, remaining: 0, resetAfter: 1.5, retryAfter: 1.5)
        limited.global = false
        let until = at(10) + .milliseconds(1500) + limiter.safety
        #expect(limiter.complete(b, limited, now: at(10)) == .retry(at: until))
        #expect(limiter.acquire(create, global: true, now: at(11)) == .wait(until: until))
        _ = try ticket(limiter.acquire(create, global: true, now: until))
    }

    @Test func aGlobal429BlocksEveryRouteButInteractionCallbacks() throws {
        var limiter = RateLimiter()
        let a = try ticket(limiter.acquire(create, global: true, now: at(0)))
        let until = at(3) + .seconds(2) + limiter.safety
        #expect(limiter.complete(a, RateLimitInfo(status: 429, retryAfter: 2, global: true), now: at(3)) == .retry(at: until))
        #expect(limiter.acquire(createOther, global: true, now: at(4)) == .wait(until: until))
        let callback = RouteKey(route: "POST /interactions/{interaction_id}/{interaction_token}/callback", major: "9")
        _ = try ticket(limiter.acquire(callback, global: false, now: at(4)))
    }

    @Test func theGlobalWindowStaysBelowDiscordsFiftyPerSecond() throws {
        var limiter = RateLimiter()
        var sent = 0
        for n in 0..<200 {
            let key = RouteKey(route: "GET /x", major: String(n))
            if case .send = limiter.acquire(key, global: true, now: at(n)) { sent += 1 }
        }
        #expect(sent == limiter.globalLimit)
        #expect(limiter.globalLimit < 50)
    }

    @Test func aUsedUpBucketOutlivesARestart() throws {
        var old = RateLimiter()
        let first = try ticket(old.acquire(edit, global: true, now: at(0)))
        _ = old.complete(first, headers(0, resetAfter: 2, bucket: "b-edit"), now: at(10))
        let hold = old.holds(now: at(10), wallNow: 1000)
        #expect(hold.buckets.map(\.route) == [edit.route])
        #expect(hold.buckets.first.map { abs($0.until - (1000 + 2 + 0.06)) < 0.001 } == true)
        // Saved, then a new instance starts 0.5 s later (another process: another clock).
        let data = try JSONEncoder().encode(hold)
        var fresh = RateLimiter()
        fresh.restore(try JSONDecoder().decode(RateLimitHold.self, from: data), now: at(5000), wallNow: 1000.5)
        guard case .wait(let until) = fresh.acquire(edit, global: true, now: at(5000)) else {
            throw Failure("a restarted limiter sent into a used-up bucket")
        }
        #expect(abs((until - at(5000)) / .milliseconds(1) - 1560) < 2)
        // After the reset one request learns the real window; a second waits for its answer.
        let probe = try ticket(fresh.acquire(edit, global: true, now: until))
        if case .send = fresh.acquire(edit, global: true, now: until) { throw Failure("more than one probe") }
        _ = fresh.complete(probe, headers(4, resetAfter: 5, bucket: "b-edit"), now: until + .milliseconds(20))
        // Other channels were never held.
        _ = try ticket(fresh.acquire(createOther, global: true, now: at(5000)))
        // Holds that ended before the restart are ignored.
        var late = RateLimiter()
        late.restore(hold, now: at(0), wallNow: 2000)
        _ = try ticket(late.acquire(edit, global: true, now: at(0)))
    }

    @Test func theGlobalWindowOfAKilledInstanceCountsAfterTheRestart() throws {
        var old = RateLimiter()
        // 40 requests in the last 400 ms, each on its own channel (own major: no bucket limits).
        for i in 0..<40 {
            let key = RouteKey(route: "POST /channels/{channel_id}/typing", major: "c\(i)")
            _ = try ticket(old.acquire(key, global: true, now: at(i * 10)))
        }
        #expect(old.globalLoad(now: at(400)) == 40)
        let hold = old.holds(now: at(400), wallNow: 1000)
        #expect(hold.globalSends.count == 40)
        var fresh = RateLimiter()
        fresh.restore(hold, now: at(0), wallNow: 1000.1)
        // Only what is left of the 45 per second, until the old requests leave the window.
        var sent = 0
        for i in 0..<20 {
            let key = RouteKey(route: "POST /channels/{channel_id}/typing", major: "n\(i)")
            if case .send = fresh.acquire(key, global: true, now: at(0)) { sent += 1 }
        }
        #expect(sent == fresh.globalLimit - 40)
        // The first old request (sent at wall 999.6) leaves the window at wall 1000.6 = at(500).
        let key = RouteKey(route: "POST /channels/{channel_id}/typing", major: "later")
        if case .send = fresh.acquire(key, global: true, now: at(400)) { throw Failure("sent inside the old window") }
        _ = try ticket(fresh.acquire(key, global: true, now: at(510)))
    }

    @Test func aTransportFailureReleasesTheSlot() throws {
        var limiter = RateLimiter()
        let a = try ticket(limiter.acquire(create, global: true, now: at(0)))
        limiter.abandon(a)
        _ = try ticket(limiter.acquire(create, global: true, now: at(1)))
    }

    /// A server with Discord's fixed windows (5 per 5 s per channel, window opened by the first
    /// request) and random network delays, against clients sending as fast as the limiter lets
    /// them: no request may ever be refused with a 429.
    @Test(arguments: [1, 2, 3, 4, 5])
    func underLoadItNeverProvokesA429(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var limiter = RateLimiter()
        var server: [String: (start: Int, count: Int)] = [:]
        var now = 0
        var waiting: [(key: RouteKey, notBefore: Int)] = (0..<120).map { n in
            (RouteKey(route: "POST /channels/{channel_id}/messages", major: String(n % 3)), 0)
        }
        var inFlight: [(ticket: RateLimiter.Ticket, arrives: Int, answers: Int)] = []
        var refused = 0
        var done = 0
        while done < 120 && now < 600_000 {
            // Deliver answers due now.
            for (i, f) in inFlight.enumerated().reversed() where f.answers <= now {
                inFlight.remove(at: i)
                var window = server[f.ticket.key.major] ?? (start: f.arrives, count: 0)
                if f.arrives >= window.start + 5000 { window = (f.arrives, 0) }
                let info: RateLimitInfo
                if window.count >= 5 {
                    refused += 1
                    info = RateLimitInfo(
                        status: 429, bucket: "b", limit: 5, remaining: 0,
                        resetAfter: Double(window.start + 5000 - f.arrives) / 1000,
                        retryAfter: Double(window.start + 5000 - f.arrives) / 1000)
                } else {
                    window.count += 1
                    info = RateLimitInfo(
                        status: 200, bucket: "b", limit: 5, remaining: 5 - window.count,
                        resetAfter: Double(window.start + 5000 - f.arrives) / 1000)
                }
                server[f.ticket.key.major] = window
                switch limiter.complete(f.ticket, info, now: at(now)) {
                case .done: done += 1
                case .retry(let until): waiting.append((f.ticket.key, Int((until - t0) / .milliseconds(1))))
                }
            }
            for (i, w) in waiting.enumerated().reversed() where w.notBefore <= now {
                switch limiter.acquire(w.key, global: true, now: at(now)) {
                case .send(let t):
                    waiting.remove(at: i)
                    let there = Int.random(in: 1...40, using: &random)
                    let back = Int.random(in: 1...40, using: &random)
                    inFlight.append((t, now + there, now + there + back))
                case .wait(let until):
                    waiting[i].notBefore = Int(((until - t0) / .milliseconds(1)).rounded(.up))
                }
            }
            now += 1
        }
        #expect(refused == 0)
        #expect(done == 120)
        // 40 requests per channel at 5 per 5 s take at least 35 s; the limiter should not waste much more.
        #expect(now < 50_000)
    }
}
