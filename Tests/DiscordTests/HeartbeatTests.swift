import Testing

@testable import DiscordPlugin

@Suite("Heartbeats and gateway send limit")
struct HeartbeatTests {
    let t0 = ContinuousClock.now

    @Test func aMissedAckIsAZombie() {
        var h = HeartbeatTracker(interval: .seconds(41))
        #expect(h.beat(now: t0) == .send)
        h.acked(now: t0 + .milliseconds(80))
        #expect(h.latency == .milliseconds(80))
        #expect(h.beat(now: t0 + .seconds(41)) == .send)
        #expect(h.beat(now: t0 + .seconds(82)) == .zombie)
    }

    @Test func aRequestedHeartbeatIsNotAMissedOne() {
        var h = HeartbeatTracker(interval: .seconds(41))
        h.requested(now: t0)
        h.acked(now: t0 + .milliseconds(10))
        #expect(h.beat(now: t0 + .seconds(1)) == .send)
    }

    @Test func theFirstBeatIsJittered() {
        #expect(HeartbeatTracker.firstDelay(interval: .seconds(40), jitter: 0) == .zero)
        #expect(HeartbeatTracker.firstDelay(interval: .seconds(40), jitter: 0.5) == .seconds(20))
        #expect(HeartbeatTracker.firstDelay(interval: .seconds(40), jitter: 1.0) < .seconds(40))
    }

    @Test func sendsStayUnder120PerMinuteWithRoomForHeartbeats() {
        var limiter = GatewaySendLimiter()
        var presences = 0
        for n in 0..<200 where limiter.admit(now: t0 + .milliseconds(n), heartbeat: false) == nil { presences += 1 }
        #expect(presences == 110)
        for n in 0..<10 { #expect(limiter.admit(now: t0 + .milliseconds(300 + n), heartbeat: true) == nil) }
        #expect(limiter.admit(now: t0 + .seconds(1), heartbeat: true) == t0 + .seconds(60))
        #expect(limiter.admit(now: t0 + .seconds(60), heartbeat: true) == nil)
    }
}
