import Foundation
import PiRelaySDK
import Testing

/// Prompts that arrive while pi compacts. pi-rpc §2: `compact` detaches pi's event listener, so
/// a prompt sent meanwhile runs with nobody told (pi extension spec §11 trap 7), and the
/// compaction then replaces the context it ran in. After a run, a threshold compaction (§3)
/// leaves pi idle: a prompt sent then runs at once, and its events were taken for the compacted
/// run's. Either way the answer was lost. The prompt now waits until pi is done compacting.
@Suite struct CompactionPromptTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aPromptDuringACompactWaitsForItAndIsAnswered() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start(chat.config(), environment: ["FAKE_PI_COMPACT_MS": "3000"])
            _ = try await chat.newBoundSession("compacted")
            for n in 1...2 {
                _ = try await chat.say("turn \(n)")
                _ = try await chat.waitForFinal(n)
            }
            async let compacted = chat.say("/compact")
            try await Task.sleep(for: .milliseconds(500))
            _ = try await chat.say("after the compaction")
            let final = try await chat.waitForFinal(3, timeout: .seconds(30))
            #expect(
                final["text"]?.stringValue?.contains("Echo: after the compaction") == true || "\(final)".contains("Echo: after the compaction"),
                "\(final)")
            _ = try await compacted
            let prompts = chat.piCommands("prompt").compactMap { $0["message"]?.stringValue }
            #expect(prompts.last == "after the compaction", "\(prompts)")
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aPromptDuringAThresholdCompactionGetsItsOwnAnswer() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start(chat.config(), environment: ["FAKE_PI_COMPACT_MS": "2000"])
            _ = try await chat.newBoundSession("compacted")
            _ = try await chat.say("!scenario threshold-compaction")
            // The answer streams, then pi compacts for 2 s before the run is over.
            try await Task.sleep(for: .milliseconds(1000))
            _ = try await chat.say("during the compaction")
            let first = try await chat.waitForFinal(1, timeout: .seconds(30))
            let second = try await chat.waitForFinal(2, timeout: .seconds(30))
            #expect("\(first)".contains("compaction threshold") && !"\(first)".contains("Echo: during"), "\(first)")
            #expect("\(second)".contains("Echo: during the compaction"), "\(second)")
        }
    }
}
