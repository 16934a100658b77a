import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// A session's event ring: the newest events, within a count and a byte budget.
@Suite struct SessionEventHistoryTests {
    static func delta(_ n: Int, size: Int = 10) -> JSONValue {
        ["delta": .string("\(n):" + String(repeating: "x", count: size))]
    }

    @Test func keepsTheNewestEventsInOrderUpToTheCount() {
        var h = EventHistory(maxEntries: 50, maxBytes: 1 << 20)
        for n in 0..<5_000 { h.append(type: "text_delta", preview: Self.delta(n)) }
        #expect(h.count == 50)
        let all = h.query(types: nil, since: nil, limit: .max)
        #expect(all.compactMap { $0.preview["delta"]?.stringValue?.split(separator: ":").first.flatMap { Int($0) } } == Array(4950..<5000))
    }

    @Test func staysWithinTheByteBudget() {
        var h = EventHistory(maxEntries: 100_000, maxBytes: 8192)
        for n in 0..<3_000 { h.append(type: "text_delta", preview: Self.delta(n, size: n % 300)) }
        #expect(h.totalBytes <= 8192)
        #expect(h.totalBytes == h.query(types: nil, since: nil, limit: .max).reduce(0) { $0 + $1.bytes }, "its accounting adds up")
        #expect(h.count > 10)
        #expect(h.query(types: nil, since: nil, limit: 1).first?.preview == Self.delta(2999, size: 2999 % 300))
    }

    @Test func anEventLargerThanTheBudgetIsStillKeptAlone() {
        var h = EventHistory(maxEntries: 10, maxBytes: 1024)
        h.append(type: "a", preview: Self.delta(1))
        h.append(type: "big", preview: Self.delta(2, size: 5_000))
        #expect(h.count == 1)
        #expect(h.query(types: nil, since: nil, limit: 10).map(\.type) == ["big"])
        h.append(type: "c", preview: Self.delta(3))
        #expect(h.query(types: nil, since: nil, limit: 10).map(\.type) == ["c"], "the big one goes as soon as there is another")
    }

    @Test func queriesFilterByTypeTimeAndLimit() {
        var h = EventHistory(maxEntries: 1000, maxBytes: 1 << 20)
        let start = Date(timeIntervalSince1970: 1_000_000)
        for n in 0..<100 {
            h.append(type: n % 10 == 9 ? "run_finished" : "text_delta", preview: Self.delta(n), at: start.addingTimeInterval(Double(n)))
        }
        let runs = h.query(types: ["run_finished"], since: nil, limit: 1000)
        #expect(runs.count == 10 && runs.allSatisfy { $0.type == "run_finished" })
        let recent = h.query(types: nil, since: start.addingTimeInterval(90), limit: 1000)
        #expect(recent.count == 10 && recent.first?.time == start.addingTimeInterval(90), "since is inclusive")
        let newest = h.query(types: ["text_delta"], since: start.addingTimeInterval(50), limit: 3)
        #expect(newest.map(\.time) == [96, 97, 98].map { start.addingTimeInterval($0) }, "the newest, oldest first")
        #expect(h.query(types: ["nothing"], since: nil, limit: 10).isEmpty)
    }

    @Test func dropsThroughItsCompactionWithoutLosingOrder() {
        // More than 1024 drops triggers the internal compaction; the view must not change.
        var h = EventHistory(maxEntries: 700, maxBytes: 1 << 24)
        for n in 0..<10_000 { h.append(type: "e", preview: Self.delta(n)) }
        let kept = h.query(types: nil, since: nil, limit: .max)
        #expect(kept.count == 700)
        #expect(kept.first?.preview == Self.delta(9300) && kept.last?.preview == Self.delta(9999))
    }
}
