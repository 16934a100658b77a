import Foundation
import PiRelaySDK
import Testing

extension Scenarios {
    /// Priority in a channel's send budget (the kit's send queue over Discord's buckets): while a
    /// post waits out 429s, what comes next is chosen by urgency, not by arrival.
    @Suite("Send queue", .serialized)
    struct SendQueueScenarios {
        /// A live view's post waits out three 429s (discord-api.md §6: Retry-After). Behind it in
        /// the channel, a second run's live view arrives, then a question: the question is posted
        /// first, the live view after it.
        @Test(.timeLimit(.minutes(2)))
        func aQuestionGoesBeforeALiveViewThatCameFirst() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                try await s.fake.post(
                    "/ratelimits/storm", ["route": "message_create", "major": .string(Scenario.general), "count": 3, "retry_after": 2.0])
                let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                let postsPath = "/requests?method=POST&path=/channels/\(Scenario.general)/messages&since=\(cursor)"
                await plugin.notify("chat.live", StreamingScenarios.live(Scenario.general, run: "r1", rev: 1, chunks: [], tail: "first run"))
                // The others come once the first post is waiting out its first 429 (six seconds of
                // 429s in all), not after a fixed time a loaded machine may not keep.
                let refused = try await s.eventually { () -> JSONValue? in
                    let requests = try await s.fake.get(postsPath)["requests"]?.arrayValue ?? []
                    return requests.first { $0["status"]?.intValue == 429 }
                }
                #expect(refused != nil, "the first live view's post was never refused")
                await plugin.notify("chat.live", StreamingScenarios.live(Scenario.general, run: "r2", rev: 1, chunks: [], tail: "second run"))
                try await Task.sleep(for: .milliseconds(100))
                let expires = (Date().timeIntervalSince1970 + 60) * 1000
                #expect(
                    await plugin.deliverAndWait(
                        "q-post", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)], "kind": "question", "sessionId": "s1",
                            "question": [
                                "id": "q1", "sessionId": "s1", "method": "confirm", "title": "Run the migration?",
                                "expiresAt": .number(expires),
                            ],
                        ]))
                _ = try await s.eventually { try await s.botMessages(Scenario.general, containing: "second run").first }
                let posts = try await s.fake.get(postsPath)["requests"]?.arrayValue ?? []
                let shown = posts.filter { $0["status"]?.intValue == 200 }.compactMap { $0["response_body"]?["content"]?.stringValue }
                #expect(shown.count == 3, "\(shown)")
                #expect(shown.first == "first run")
                #expect(shown.dropFirst().first?.contains("Run the migration?") == true, "the question went before the second live view: \(shown)")
                #expect(shown.last == "second run")
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }
    }
}
