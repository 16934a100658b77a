import Foundation
import PiRelaySDK
import Testing

/// The hot path: pi's `message_update` lines carry the whole partial message twice, so a long
/// answer is tens of MB of stdout. The daemon must read through it without holding on to it.
@Suite struct SessionMemoryTests {
    @Test func sixtyMegabytesOfStreamingKeepTheDaemonsMemoryBounded() async throws {
        try await SessionHome.with { s in
            let daemon = try await s.start()
            let id = try await s.new(name: "m")
            try await s.prompt(id, "warm up")
            let baseline = try #require(SessionMemory.residentBytes(daemon.pid))

            let sent = Date()
            _ = try await s.json("send", "m", "!scenario stream 60")
            var peak = baseline
            var samples = 0
            try await waitUntil("the 60 MB run finished", timeout: .seconds(150), every: .milliseconds(100)) {
                if let rss = SessionMemory.residentBytes(daemon.pid) {
                    peak = max(peak, rss)
                    samples += 1
                }
                return try await !s.runsFinished(id, since: sent).isEmpty
            }
            let growth = peak - baseline
            #expect(growth < 60 << 20, "VmRSS grew by \(growth >> 20) MB (baseline \(baseline >> 20) MB, peak \(peak >> 20) MB, \(samples) samples)")
            #expect(samples >= 5, "the run was sampled while it streamed")
            let text = try #require(try await s.last(id))
            #expect(text.hasPrefix("Streamed ") && text.hasSuffix(" answers."), "the run completed: \(text.prefix(200))")
            #expect(try await s.history(id, "--type", "run_finished").last?["stopReason"] == "stop")
            #expect(!s.home.daemonLog.contains("skipped a"), "no line was dropped")
        }
    }
}
