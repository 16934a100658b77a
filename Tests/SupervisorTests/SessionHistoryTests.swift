import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// What a session keeps of what happened, and what its `stream` clients get.
@Suite(.timeLimit(.minutes(1))) struct SessionHistoryTests {
    static let t0 = Date(timeIntervalSince1970: 1_000)

    @Test func aWatcherGetsEachEventWithItsSessionAndTheHistoryKeepsIt() async {
        var history = SessionHistory(maxEntries: 100, maxBytes: 1 << 20)
        let (_, stream) = history.watch()
        history.record(type: "tool_execution_start", ["tool": "bash"], session: "api", at: Self.t0)
        history.recordDelta("text_delta", String(repeating: "x", count: 300), session: "api", at: Self.t0)
        history.endWatching()
        var seen: [JSONValue] = []
        for await entry in stream { seen.append(entry) }
        #expect(seen.map { $0["type"] } == ["tool_execution_start", "text_delta"])
        #expect(seen.first?["session"] == "api")
        #expect(seen.last?["delta"]?.stringValue?.count == 200, "a delta is kept to its first 200 characters")
        #expect(history.count == 2)
        #expect(history.entries(types: ["tool_execution_start"], since: nil, limit: 10).first?["tool"] == "bash")
    }

    @Test func anUnwatchedStreamEndsAndGetsNothingMore() async {
        var history = SessionHistory(maxEntries: 100, maxBytes: 1 << 20)
        let (key, stream) = history.watch()
        history.unwatch(key)
        history.record(type: "agent_start", [:], session: "api", at: Self.t0)
        var seen = 0
        for await _ in stream { seen += 1 }
        #expect(seen == 0)
        history.note("▶ alice: run the tests")
        #expect(history.activity.last(1).first?.text.contains("run the tests") == true)
    }
}
