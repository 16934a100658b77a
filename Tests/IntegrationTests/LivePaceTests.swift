import Foundation
import PiRelaySDK
import Testing

/// Live views come at the pace the messenger names in its hello (`limits.liveIntervalMs`), or
/// the slower one its section in config.yaml asks for (`liveIntervalMs`), and at 800 ms when
/// neither names one: views sent faster than a chat can show them were rendered, sent
/// and dropped (issue 12 k). Only the lower bound is checked; a busy machine may send fewer.
@Suite struct LivePaceTests {
    /// Seconds between consecutive live views of one run, as the fake messenger received them.
    static func gaps(_ chat: E2EChatHome, runID: String) -> [Double] {
        let times = views(chat, runID: runID)
        return zip(times.dropFirst(), times).map { later, earlier in later - earlier }
    }

    @Test(arguments: [(nil, nil, 0.8), ("1500", nil, 1.5), ("1000", "2000", 2)] as [(String?, String?, Double)])
    func liveViewsComeNoFasterThanTheMessengersPace(declared: String?, configured: String?, interval: Double) async throws {
        try await E2EChatHome.with { chat in
            var environment: [String: String] = [:]
            if let declared { environment["FAKE_LIVE_INTERVAL_MS"] = declared }
            var config = chat.config()
            if let configured { config.messenger = ["liveIntervalMs: \(configured)"] }
            _ = try await chat.start(config, environment: environment)
            let sid = try await chat.newBoundSession("paced")
            // 60 chunks 100 ms apart: a change every 100 ms for six seconds.
            _ = try await chat.say("!scenario slow 60 100")
            _ = try await chat.waitForFinal(1)
            let gaps = Self.gaps(chat, runID: "\(sid)-1")
            #expect(gaps.count >= 2, "the run was shown live more than twice: \(gaps)")
            // The fake stamps a view when it reads it: one read late on a busy machine shortens
            // the next gap, so a quarter is allowed (the old pace, 400 ms, still fails both).
            #expect(gaps.allSatisfy { $0 >= interval * 0.75 }, "views \(gaps) came faster than every \(interval) s")
        }
    }

    /// A chat that takes live views again mid-run (`/progress normal` after `completion-only`,
    /// as a web page reopened) gets the run's view at its next change, not once the 800 ms that
    /// a round of views nobody wanted started have passed. Five switches, so one lucky switch
    /// cannot hide the wait, and one stalled by a loaded machine cannot fail it: the wait this
    /// guards against comes at every switch.
    @Test func aChatThatTakesLiveViewsAgainSeesTheNextChange() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start(chat.config(), environment: ["FAKE_LIVE_INTERVAL_MS": "100"])
            let sid = try await chat.newBoundSession("switched")
            // A change every 100 ms for eight seconds.
            _ = try await chat.say("!scenario slow 80 100")
            var waits: [Double] = []
            for _ in 0..<5 {
                _ = try await chat.say("/progress completion-only")
                try await Task.sleep(for: .milliseconds(250))
                let switched = Date().timeIntervalSince1970
                _ = try await chat.say("/progress normal")
                var seen: Double?
                let deadline = ContinuousClock.now + .seconds(3)
                while seen == nil, ContinuousClock.now < deadline {
                    seen = Self.views(chat, runID: "\(sid)-1").first { $0 > switched }
                    if seen == nil { try await Task.sleep(for: .milliseconds(10)) }
                }
                waits.append((seen ?? .infinity) - switched)
            }
            // The next change comes within 100 ms. The wait this guards against is the 800 ms
            // interval that the round nobody wanted started, within 100 ms of completion-only,
            // less the 250 ms pause: 0.59-0.73 s after the switch with that fix taken out. A fresh-clone CI measured
            // 0.23-0.40 s here with both cores busy (0.35 s was the bound once, and it failed).
            #expect(waits.filter { $0 < 0.5 }.count >= 4, "the first views after each switch came \(waits) s later")
        }
    }

    /// When the fake messenger received each live view of a run.
    static func views(_ chat: E2EChatHome, runID: String) -> [Double] {
        chat.messengerEvents()
            .filter { $0["event"] == "notify" && $0["method"] == "chat.live" && $0["params"]?["runId"]?.stringValue == runID }
            .compactMap { $0["t"]?.doubleValue }
    }
}
