import FoundationEssentials
import PiRelaySDK
import Testing

@testable import Supervisor

/// A session's health figures, on a clock the tests move by hand.
@Suite struct SessionHealthTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    @Test func aPromptIsTimedToItsFirstTextAndItsFinal() {
        var health = SessionHealth()
        health.prompted(at: at(0))
        health.runStarted(at: at(0.2))
        health.runChanged(hasText: false, at: at(0.5))
        health.runChanged(hasText: true, at: at(1.5))
        health.runChanged(hasText: true, at: at(2))
        health.runFinished(at: at(4))
        #expect(health.latency[.firstText]?.recent == [.milliseconds(1500)])
        #expect(health.latency[.final]?.recent == [.seconds(4)])
        // A run nobody prompted here (a queued prompt): timed from its start.
        health.runStarted(at: at(10))
        health.runChanged(hasText: true, at: at(10.5))
        health.runFinished(at: at(11))
        #expect(health.latency[.firstText]?.recent == [.milliseconds(1500), .milliseconds(500)])
        #expect(health.latency[.final]?.count == 2)
        // A refused prompt starts no clock.
        health.prompted(at: at(20))
        health.promptRefused()
        health.runStarted(at: at(30))
        health.runFinished(at: at(31))
        #expect(health.latency[.final]?.recent.last == .seconds(1))
    }

    @Test func queuedPromptsWaitUntilPiTakesThemAndTimeoutsAreCounted() {
        var health = SessionHealth()
        let now = Date()
        health.promptQueued("one", at: now)
        health.promptQueued("two", at: now.addingTimeInterval(1))
        health.promptTaken("something else")
        health.promptTaken("one")
        #expect(health.queued.map(\.text) == ["two"])
        health.childExited()
        #expect(health.queued.isEmpty)
        health.timedOut("run")
        health.timedOut("run")
        health.timedOut("command")
        #expect(health.timeouts == ["run": 2, "command": 1])
    }

    @Test func theHealthLineSaysItAll() {
        let figures: JSONValue = [
            "sessionsByState": ["idle": 2, "busy": 1], "promptQueue": 2, "promptQueueOldestSeconds": 14.5,
            "timeouts": ["run": 1, "command": 2], "outboxDepth": 0,
            "sessionLatency": [
                "api": [
                    "first_text": ["count": 3, "p50Ms": 800, "p90Ms": 1500, "p99Ms": 2100],
                    "final": ["count": 3, "p50Ms": 5200, "p90Ms": 9000, "p99Ms": 9900],
                ]
            ],
        ]
        #expect(
            HealthLine.text(figures)
                == "health: 3 sessions (busy 1, idle 2); prompt queue 2 (oldest 14.5 s); timeouts 3 (command 2, run 1); outbox 0; "
                + "api first text p50 800 ms p99 2.1 s, final p50 5.2 s p99 9.9 s (3 runs)")
    }
}

/// `history --raw`'s spill: lines kept whole, read back filtered, and cut to half its cap when
/// it would grow past it, the newest kept.
@Suite struct RawEventSpillTests {
    @Test func pastItsCapTheOlderHalfGoes() throws {
        let folder = try ScratchFolder()
        var spill = RawEventSpill(path: folder.path + "/history/s.jsonl", maxBytes: 4096)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<60 {
            let line = Array("{\"type\":\"tool_execution_end\",\"n\":\(index),\"result\":\"\(String(repeating: "x", count: 100))\"}".utf8)
            spill.append(
                type: index.isMultiple(of: 2) ? "tool_execution_end" : "message_end", line: line, at: start.addingTimeInterval(Double(index)))
        }
        let size = (try FileManager.default.attributesOfItem(atPath: spill.path)[.size] as? Int) ?? 0
        #expect(size <= 4096, "\(size) bytes")
        let all = spill.entries(types: nil, since: nil, limit: 1000)
        #expect(all.count > 5 && all.count < 60)
        #expect(all.last?["event"]?["n"]?.intValue == 59, "the newest kept")
        #expect(all.compactMap { $0["event"]?["n"]?.intValue } == Array((60 - all.count)..<60), "in order, none lost in between")
        let ends = spill.entries(types: ["message_end"], since: start.addingTimeInterval(55), limit: 2)
        #expect(ends.compactMap { $0["event"]?["n"]?.intValue } == [57, 59])
        spill.remove()
        #expect(!FileManager.default.fileExists(atPath: spill.path))
        #expect(spill.entries(types: nil, since: nil, limit: 10).isEmpty)
    }

    /// A folder it cannot write loses only the payloads: nothing throws, nothing is read back.
    @Test func aSpillThatCannotBeWrittenKeepsNothingAndGoesOn() throws {
        let folder = try ScratchFolder()
        try Data().write(to: URL(fileURLWithPath: folder.path + "/history"))  // a file where the folder should be
        var spill = RawEventSpill(path: folder.path + "/history/s.jsonl", maxBytes: 4096)
        spill.append(type: "message_end", line: Array("{}".utf8), at: Date())
        #expect(spill.entries(types: nil, since: nil, limit: 10).isEmpty)
    }
}
