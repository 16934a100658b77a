import Foundation
import PiRelaySDK
import Testing

extension Scenarios {
    /// State written by released plugins is read after the upgrade.
    @Suite("Upgrade", .serialized)
    struct UpgradeScenarios {
        /// `runs.json` as a released plugin wrote it (run `r1` shown by one message in #general,
        /// keyed `RUN@CHANNEL`, what it showed kept as a fingerprint): the upgraded plugin takes it
        /// over, so the run's final edits that message instead of posting a second one, and the
        /// old file is gone.
        @Test(.timeLimit(.minutes(2)))
        func aRunsFileFromAReleasedPluginIsEditedNotPostedAgain() async throws {
            try await Scenario.run { s in
                let first = try await s.startReady(name: "first")
                await first.notify("chat.live", StreamingScenarios.live(Scenario.general, run: "r1", rev: 1, chunks: [], tail: "thinking about it"))
                let draft = try await s.eventually { try await s.botMessages(Scenario.general, containing: "thinking about it").first }
                let id = try #require(draft?["id"]?.stringValue)
                #expect(await first.kill9() == 137)

                let state = s.stateDir
                // What the kit's LiveMessages wrote: a released plugin had only runs.json.
                try? FileManager.default.removeItem(atPath: state + "/live-messages.json")
                try? FileManager.default.removeItem(atPath: state + "/live-messages")
                let now = Date().timeIntervalSince1970
                let released = """
                    {"r1@\(Scenario.general)":{"channel":"\(Scenario.general)","messageIDs":["\(id)"],\
                    "fingerprints":["6c1f8e0d3a2b4c5d:17"],"finished":false,"updatedAt":\(now)},\
                    "r0@\(Scenario.general)":{"channel":"\(Scenario.general)","messageIDs":["1"],"fingerprints":["0:1"],\
                    "finished":true,"updatedAt":\(now)}}
                    """
                #expect(FileManager.default.createFile(atPath: state + "/runs.json", contents: Data(released.utf8)))

                let second = try await s.startPlugin(name: "second")
                #expect(
                    await second.deliverAndWait(
                        "fin-r1", "chat.post", StreamingScenarios.final(Scenario.general, run: "r1", chunks: ["the answer, at last"])))
                let messages = try await s.fake.messages(channel: Scenario.general)
                #expect(messages.count == 1, "\(messages.compactMap { $0["content"]?.stringValue })")
                #expect(messages.first?["id"]?.stringValue == id)
                #expect(messages.first?["content"]?.stringValue == "the answer, at last")
                #expect(!FileManager.default.fileExists(atPath: state + "/runs.json"))
                #expect(try await s.violations().isEmpty)
                #expect(await second.shutdown() == 0)
            }
        }
    }
}
