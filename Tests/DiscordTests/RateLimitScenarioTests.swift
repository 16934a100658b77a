import Foundation
import PiRelaySDK
import Testing

extension Scenarios {
    /// Discord's rate limits under load: many runs at once, a storm of 429s, and a restart that
    /// must not spend a bucket the last instance used up. A suite of its own, beside streaming and
    /// posting, since each waits out real rate-limit windows.
    @Suite("Rate limits", .serialized)
    struct RateLimitScenarios {
        /// Twenty runs streaming at once in five channels, then their finals: every final lands,
        /// no request is ever answered 429, nothing is rejected.
        @Test(.timeLimit(.minutes(4)))
        func twentyParallelStreamsWithoutA429() async throws {
            let extra = (3...5).map { "120000000000000000\($0):c\($0)" }
            try await Scenario.run(extraChannels: extra) { s in
                let plugin = try await s.startReady()
                let channels = [Scenario.general, Scenario.ops] + (3...5).map { "120000000000000000\($0)" }
                let runs = (0..<20).map { (id: "run\($0)", channel: channels[$0 % channels.count]) }
                var chunks: [String: [String]] = [:]
                for rev in 1...16 {
                    for run in runs {
                        var done = chunks[run.id] ?? []
                        if rev % 8 == 0 { done.append("\(run.id) chunk \(done.count + 1) " + String(repeating: "x", count: 300)) }
                        chunks[run.id] = done
                        await plugin.notify(
                            "chat.live",
                            StreamingScenarios.live(
                                run.channel, run: run.id, rev: rev, chunks: done,
                                tail: "\(run.id) typing \(rev) " + String(repeating: "y", count: rev * 20)))
                    }
                    try await Task.sleep(for: .milliseconds(150))
                }
                for run in runs {
                    let final = (chunks[run.id] ?? []) + ["\(run.id) the end"]
                    await plugin.deliver("fin-\(run.id)", "chat.post", StreamingScenarios.final(run.channel, run: run.id, chunks: final))
                }
                for run in runs {
                    #expect(await plugin.waitForAck("fin-\(run.id)", timeout: .seconds(150)), "final of \(run.id)")
                }
                for run in runs {
                    #expect(try await s.botMessages(run.channel, containing: "\(run.id) the end").count == 1)
                }
                let stats = try await s.stats()
                #expect(stats["rate_limited_429"] == 0)
                #expect(try await s.violations().isEmpty)
                let status = await plugin.request("status")
                #expect(status?["result"]?["rest"]?["rateLimited"] == 0)
                #expect(await plugin.shutdown() == 0)
                s.expectTokenNeverLogged()
            }
        }

        /// Three scripted 429s on message creates, then a global one: the plugin waits
        /// retry_after each time, posts exactly once, and only then acks.
        @Test(.timeLimit(.minutes(2)))
        func a429StormIsHonoured() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                try await s.fake.post(
                    "/ratelimits/storm",
                    [
                        "route": "message_create", "major": .string(Scenario.general),
                        "count": 3, "retry_after": 1.0,
                    ])
                let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                #expect(
                    await plugin.deliverAndWait(
                        "storm-1", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)],
                            "kind": "notice", "text": "after the storm",
                        ]))
                let posts =
                    try await s.fake.get("/requests?method=POST&path=/channels/\(Scenario.general)/messages&since=\(cursor)")["requests"]?.arrayValue
                    ?? []
                #expect(posts.map { $0["status"]?.intValue ?? 0 } == [429, 429, 429, 200])
                let times = posts.compactMap { $0["time"]?.doubleValue }
                for (a, b) in zip(times, times.dropFirst()) { #expect(b - a >= 1.0, "waited retry_after") }
                #expect(try await s.botMessages(Scenario.general, containing: "after the storm").count == 1)

                try await s.fake.post("/ratelimits/storm", ["route": "*", "scope": "global", "count": 2, "retry_after": 0.5])
                let cursor2 = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                #expect(
                    await plugin.deliverAndWait(
                        "storm-2", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.ops)],
                            "kind": "notice", "text": "after the global storm",
                        ]))
                let global =
                    try await s.fake.get("/requests?method=POST&path=/channels/\(Scenario.ops)/messages&since=\(cursor2)")["requests"]?.arrayValue
                    ?? []
                #expect(global.map { $0["status"]?.intValue ?? 0 } == [429, 429, 200])
                let gtimes = global.compactMap { $0["time"]?.doubleValue }
                for (a, b) in zip(gtimes, gtimes.dropFirst()) { #expect(b - a >= 0.5) }
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
                s.expectTokenNeverLogged()
            }
        }

        /// A plugin killed right after using up a bucket, and started again: the new instance
        /// knows the bucket is used up until its reset (state directory) and waits instead of
        /// drawing a 429 with its first request.
        @Test(.timeLimit(.minutes(2)))
        func aRestartDoesNotSpendABucketTheLastInstanceUsedUp() async throws {
            try await Scenario.run { s in
                let first = try await s.startReady(name: "first")
                for i in 1...5 {
                    #expect(
                        await first.deliverAndWait(
                            "spend-\(i)", "chat.post",
                            [
                                "target": ["channel": .string(Scenario.general)],
                                "kind": "notice", "text": .string("notice \(i)"),
                            ]))
                }
                #expect(await first.kill9() == 137)
                let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                let second = try await s.startPlugin(name: "second")
                #expect(
                    await second.deliverAndWait(
                        "after-restart", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)],
                            "kind": "notice", "text": "after the restart",
                        ]))
                let posts =
                    try await s.fake.get("/requests?method=POST&path=/channels/\(Scenario.general)/messages&since=\(cursor)")["requests"]?.arrayValue
                    ?? []
                #expect(posts.map { $0["status"]?.intValue ?? 0 } == [200], "\(second.stderr())")
                #expect(try await s.botMessages(Scenario.general, containing: "after the restart").count == 1)
                #expect(try await s.violations().isEmpty)
                #expect(await second.shutdown() == 0)
            }
        }

        /// Typing in a channel where the bot may not post is refused (403 50013), and every
        /// refusal counts towards the invalid requests that get a bot's address banned
        /// (discord-api.md §6): it is tried once, not every 8 s while the run streams.
        @Test(.timeLimit(.minutes(2)))
        func typingWhereTheBotMayNotPostIsNotTriedAgainAndAgain() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                let channel = "1200000000000000077"
                _ = try await s.fake.post(
                    "/channels",
                    [
                        "id": .string(channel), "name": "read-only", "guild_id": .string(Scenario.guild), "type": 0,
                        "bot_permissions": ["view": true, "send": false],
                    ])
                for _ in 0..<11 {
                    await plugin.notify("chat.typing", ["target": ["channel": .string(channel)]])
                    try await Task.sleep(for: .seconds(1))
                }
                let tries = try await s.fake.get("/requests?method=POST&path=/channels/\(channel)/typing")["requests"]?.arrayValue ?? []
                #expect(tries.map { $0["status"]?.intValue ?? 0 } == [403], "\(tries.count) tries")
                #expect(await plugin.shutdown() == 0)
            }
        }
    }
}
