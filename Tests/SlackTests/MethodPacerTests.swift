import FoundationEssentials
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

    /// A restarted plugin keeps what its predecessor spent, through the saved file: Tier 1's
    /// empty bucket and a half-spent Tier 3 one wait, a method it had not called goes at once,
    /// and a bucket full again is not saved.
    @Test func aRestartedPacerKeepsWhatItsPredecessorSpent() throws {
        var first = MethodPacer()
        for _ in 0..<3 { #expect(first.reserve(method: "apps.connections.open", channel: nil, now: 100) == 0) }
        for _ in 0..<4 { #expect(first.reserve(method: "chat.update", channel: nil, now: 100) == 0) }
        _ = first.reserve(method: "reactions.add", channel: nil, now: 50)
        let file = try JSONEncoder().encode(first.saved(now: 101))
        let saved = try JSONDecoder().decode(MethodPacer.self, from: file)
        #expect(Set(saved.buckets.keys) == ["apps.connections.open", "chat.update"], "reactions.add is full again")
        var second = MethodPacer()
        second.keep(from: saved)
        #expect(second.reserve(method: "apps.connections.open", channel: nil, now: 101) > 20, "the saved Tier 1 bucket is empty")
        #expect(second.reserve(method: "chat.update", channel: nil, now: 101) > 0, "so is the Tier 3 one, for a moment")
        #expect(second.reserve(method: "chat.postMessage", channel: "D1", now: 101) == 0, "a bucket not on file is full")
    }

    /// A call waiting for its place takes nothing until it goes: restarted again and again while
    /// it waits, a plugin's Socket Mode connection is not pushed further away each time.
    @Test func aCallWaitingForItsPlaceSpendsNothing() {
        var pacer = MethodPacer()
        for _ in 0..<3 { #expect(pacer.claim(method: "apps.connections.open", channel: nil, now: 100) == 0) }
        let wait = pacer.claim(method: "apps.connections.open", channel: nil, now: 100)
        #expect(wait > 29 && wait <= 30, "\(wait)")
        for _ in 0..<50 { #expect(pacer.claim(method: "apps.connections.open", channel: nil, now: 100) == wait) }
        #expect(pacer.claim(method: "apps.connections.open", channel: nil, now: 100 + wait) == 0)
    }

    /// Live edits leave all of chat.update's burst but one call for finals and closings: four
    /// answers ending together (in four chats, one workspace-wide Tier 3 budget) then go at
    /// once. The live views still get the whole rate between finals.
    @Test func liveEditsLeaveTheBurstForFinals() {
        var pacer = MethodPacer()
        #expect(pacer.wait(key: "chat.update", now: 100, keeping: 1) == 0)
        pacer.take(key: "chat.update", now: 100)
        let live = pacer.wait(key: "chat.update", now: 100, keeping: 1)
        #expect(abs(live - 1 / MethodTier.tier3.perSecond) < 0.001, "the next live edit waits for the burst to be whole again: \(live)")
        for _ in 0..<3 { #expect(pacer.wait(key: "chat.update", now: 100, keeping: 0) == 0); pacer.take(key: "chat.update", now: 100) }
        #expect(pacer.wait(key: "chat.update", now: 100, keeping: 0) > 1, "four finals spent the burst")
        // Posting keeps one post of a channel's burst for a question, and no more: a run's first
        // text must not wait.
        for _ in 0..<2 {
            #expect(pacer.wait(key: "chat.postMessage/C1", now: 100, keeping: 1) == 0); pacer.take(key: "chat.postMessage/C1", now: 100)
        }
        #expect(pacer.wait(key: "chat.postMessage/C1", now: 100, keeping: 1) > 0)
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
        #expect(saved.holds["chat.update"] == 130 && Set(saved.buckets.keys) == ["chat.update", "reactions.add"])
        #expect(pacer.saved(now: 131).holds.isEmpty)
    }
}
