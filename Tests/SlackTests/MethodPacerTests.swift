import Testing

@testable import SlackPlugin

@Suite struct MethodPacerTests {
    /// chat.update (Tier 3, 50 a minute): a burst, then the pace; never more than 50 in any minute.
    @Test func chatUpdateStaysUnderItsTierInAnyMinute() {
        var pacer = MethodPacer()
        var now = 1000.0
        var times: [Double] = []
        for _ in 0..<200 {
            let wait = pacer.reserve(method: "chat.update", channel: "D1", now: now)
            now += wait
            times.append(now)
        }
        for (index, start) in times.enumerated() {
            let inMinute = times[index...].prefix { $0 < start + 60 }.count
            #expect(inMinute <= 50, "\(inMinute) calls in the minute from \(start)")
        }
    }

    /// A restarted plugin's buckets fill from its start (its predecessor may just have spent
    /// them), except what was saved: a Tier 1 method's bucket, whose minute outlives a restart.
    @Test func aRestartedPacerDoesNotStartWithFullBuckets() {
        var first = MethodPacer()
        first.startedAt = 100
        for _ in 0..<3 { #expect(first.reserve(method: "apps.connections.open", channel: nil, now: 100) == 0) }
        var second = first.saved(now: 101)
        second.startedAt = 101
        #expect(second.reserve(method: "apps.connections.open", channel: nil, now: 101) > 20, "the saved Tier 1 bucket is empty")
        #expect(second.reserve(method: "chat.update", channel: nil, now: 101) > 1, "a fresh bucket fills from the start")
        #expect(second.reserve(method: "chat.update", channel: nil, now: 120) == 0)
    }

    @Test func postingIsPacedPerChannel() {
        var pacer = MethodPacer()
        for _ in 0..<3 { #expect(pacer.reserve(method: "chat.postMessage", channel: "C1", now: 100) == 0) }
        #expect(pacer.reserve(method: "chat.postMessage", channel: "C1", now: 100) > 0)
        #expect(pacer.reserve(method: "chat.postMessage", channel: "C2", now: 100) == 0)
    }

    /// A 429 holds that method only, and the hold is what survives a restart.
    @Test func aHoldStopsOneMethodAndIsSaved() throws {
        var pacer = MethodPacer()
        pacer.hold(method: "chat.update", seconds: 30, now: 100)
        #expect(pacer.reserve(method: "chat.update", channel: nil, now: 110) >= 20)
        #expect(pacer.reserve(method: "reactions.add", channel: nil, now: 110) == 0)
        let saved = pacer.saved(now: 110)
        #expect(saved.holds["chat.update"] == 130 && saved.buckets.isEmpty)
        #expect(pacer.saved(now: 131).holds.isEmpty)
    }
}
