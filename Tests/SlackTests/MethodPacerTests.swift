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

    @Test func postingIsPacedPerChannel() {
        var pacer = MethodPacer()
        for _ in 0..<3 { #expect(pacer.reserve(method: "chat.postMessage", channel: "C1", now: 0) == 0) }
        #expect(pacer.reserve(method: "chat.postMessage", channel: "C1", now: 0) > 0)
        #expect(pacer.reserve(method: "chat.postMessage", channel: "C2", now: 0) == 0)
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
