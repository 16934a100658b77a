import Foundation
import PiRelaySDK
import Testing

extension Scenarios {
    @Suite("Gateway", .serialized)
    struct GatewayScenarios {
        /// Handshake with pi-relayd, GET /gateway/bot, IDENTIFY with the four intents, READY,
        /// slash commands registered, status answered, clean shutdown that keeps the session
        /// resumable.
        @Test(.timeLimit(.minutes(2)))
        func identifiesAndRegistersCommands() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                let hello = try #require(await plugin.hello)
                #expect(hello["name"] == "discord")
                #expect(hello["roles"] == ["messenger"])
                #expect(hello["limits"] == ["maxMessageLength": 2000, "maxUploadBytes": 10_485_760, "liveIntervalMs": 800])

                let identify = try #require(try await s.fake.get("/frames?dir=in&op=2")["frames"]?[0]?["text"]?.stringValue)
                let d = try JSONValue.parse(identify)["d"]
                #expect(d?["intents"] == 37377)
                #expect(d?["properties"]?["os"] == "linux")
                let bot = try await s.fake.get("/requests?path=/gateway/bot")["requests"]?.arrayValue ?? []
                #expect(bot.first?["headers"]?["User-Agent"]?.stringValue?.hasPrefix("DiscordBot (") == true)

                let commands = try await s.fake.get("/commands")["commands"]
                let expected: Set<String> = [
                    "sessions", "status", "new", "use", "alias", "stop", "steer", "followup", "compact",
                    "model", "end", "approvals", "forget", "to", "cancel", "disconnect", "progress", "recent", "summary",
                    "full", "pause", "resume", "mentions", "schedule", "help",
                ]
                #expect(Set(commands?["global"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []) == expected)
                #expect(Set(commands?[Scenario.guild]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []) == expected)
                let new = commands?[Scenario.guild]?.arrayValue?.first { $0["name"] == "new" }
                #expect(new?["options"]?.arrayValue?.map { $0["name"] } == ["cwd", "name"])

                let status = await plugin.request("status")
                #expect(status?["result"]?["gateway"]?["phase"] == "ready")

                #expect(await plugin.shutdown() == 0)
                let closes = try await s.fake.get("/transcript?kind=ws_close_recv")["events"]?.arrayValue ?? []
                #expect(closes.last?["code"] == 4000, "closed without ending the session")
                #expect(try await s.violations().isEmpty)
                s.expectTokenNeverLogged()
            }
        }

        /// kill -9, a message typed while the plugin is down, restart with the same state
        /// directory: the plugin RESUMEs (no second IDENTIFY), Discord replays the message, and
        /// it reaches pi-relayd exactly once; the message from before the crash is not repeated.
        @Test(.timeLimit(.minutes(2)))
        func resumesAfterKillAndGetsWhatItMissed() async throws {
            try await Scenario.run { s in
                let first = try await s.startReady(name: "first")
                try await s.say("before the crash")
                #expect(await first.waitForRequests("chat.message").count == 1)
                // Killed once the hand-over is saved: the journal on disk holds nothing pending.
                #expect(
                    try await s.eventually { () -> Bool? in
                        guard let bytes = RewrittenFile.read(s.stateDir + "/inbox.json"),
                            let journal = try? JSONValue.parse(bytes: bytes), journal["pending"]?.arrayValue?.isEmpty == true
                        else { return nil }
                        return true
                    } == true)
                #expect(await first.kill9() == 128 + 9)
                _ = try await s.fake.wait("for=disconnected")

                let missed = try await s.say("typed while you were down")
                #expect(missed["delivered_to"]?.arrayValue?.count == 1, "the fake buffers it for the resumable session")

                let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                let second = try await s.startPlugin(name: "second")
                #expect(try await s.fake.wait("for=resumed&since=\(cursor)") != nil, "\(second.stderr())")
                let messages = await second.waitForRequests("chat.message")
                try await Task.sleep(for: .seconds(2))
                let all = await second.requests("chat.message")
                #expect(all.count == 1)
                #expect(all.first?["text"] == "typed while you were down")
                #expect(messages.first?["messageId"] == missed["id"])
                let stats = try await s.stats()
                #expect(stats["identifies"] == 1)
                #expect(stats["resumes"] == 1)
                #expect(await second.shutdown() == 0)
                s.expectTokenNeverLogged()
            }
        }

        /// A thread opened under a configured channel before a restart that resumes: a resumed
        /// session gets no GUILD_CREATE to list it again (discord-api.md §2.6), so the plugin
        /// keeps what it learned, and a message typed there afterwards is not dropped.
        @Test(.timeLimit(.minutes(2)))
        func aThreadLearnedBeforeAResumeIsStillListenedIn() async throws {
            try await Scenario.run { s in
                let first = try await s.startReady(name: "first")
                let made = try await s.fake.post(
                    "/threads",
                    [
                        "parent_id": .string(Scenario.general), "name": "side topic", "type": 11, "bot_member": true,
                        "user": ["id": .string(Scenario.alice), "username": "alice"],
                    ])
                let thread = try #require(made["id"]?.stringValue, "\(made)")
                #expect(
                    try await s.eventually { () -> Bool? in
                        (try? String(contentsOfFile: s.stateDir + "/bindings.json", encoding: .utf8))?.contains(thread) == true ? true : nil
                    } == true)
                #expect(await first.kill9() == 128 + 9)
                _ = try await s.fake.wait("for=disconnected")

                let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                let second = try await s.startPlugin(name: "second")
                #expect(try await s.fake.wait("for=resumed&since=\(cursor)") != nil, "\(second.stderr())")
                let sent = try await s.say("in the side topic", channel: thread)
                let messages = await second.waitForRequests("chat.message")
                #expect(messages.first?["messageId"] == sent["id"], "\(second.stderr())")
                #expect(messages.first?["chat"]?["thread"]?.stringValue == thread, "\(messages)")
                #expect(try await s.stats()["resumes"] == 1)
                #expect(await second.shutdown() == 0)
            }
        }

        /// Events the relay ignores (its own edits echoed back) move the saved resume point at
        /// most every few seconds, as saving it after each was much of the plugin's CPU while
        /// answers streamed. A plugin killed right after them resumes from before them: Discord
        /// replays them, the relay ignores them again, and a message typed meanwhile is handed
        /// over once.
        @Test(.timeLimit(.minutes(2)))
        func ignoredEventsAreReplayedAfterAResumeAndChangeNothing() async throws {
            try await Scenario.run { s in
                let first = try await s.startReady(name: "first")
                let said = ContinuousClock.now
                try await s.say("before the crash")
                #expect(await first.waitForRequests("chat.message").count == 1)
                let file = s.stateDir + "/gateway.json"
                func savedSequence() -> Int? {
                    FileManager.default.contents(atPath: file).flatMap { try? JSONValue.parse(bytes: Array($0)) }?["sequence"]?.intValue
                }
                // The user's message is acted on: the resume point moves past it at once. Its
                // sequence is the session's newest (README §5, GET /_control/gateway); an event
                // before it (GUILD_CREATE) may have been saved first.
                let sessions = try await s.fake.get("/gateway")["sessions"]?.arrayValue ?? []
                let messageSequence = try #require(sessions.first?["seq"]?.intValue)
                let saved = try #require(
                    try await s.eventually { () -> Int? in
                        guard let sequence = savedSequence(), sequence >= messageSequence else { return nil }
                        return sequence
                    })
                for k in 0..<5 {
                    let edit: JSONValue = [
                        "id": .string("15000000000000000\(k)"), "channel_id": .string(Scenario.general),
                        "guild_id": .string(Scenario.guild), "content": "an edit of the bot's own",
                        "author": ["id": .string(Scenario.bot), "username": "pi", "bot": true],
                    ]
                    #expect(try await s.fake.post("/dispatch", ["t": "MESSAGE_UPDATE", "d": edit])["delivered_to"]?.arrayValue?.count == 1)
                }
                try await Task.sleep(for: .milliseconds(500))
                // Ignored events may move the point once it is `resumeSaveSeconds` (5 s) old: the
                // check holds only while the save (after `said`) is younger, which a loaded
                // machine may not leave it.
                if ContinuousClock.now - said < .milliseconds(4500) {
                    #expect(savedSequence() == saved, "five ignored events did not move the saved point")
                }
                #expect(await first.kill9() == 128 + 9)
                _ = try await s.fake.wait("for=disconnected")

                let missed = try await s.say("typed while you were down")
                let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                let second = try await s.startPlugin(name: "second")
                #expect(try await s.fake.wait("for=resumed&since=\(cursor)") != nil, "\(second.stderr())")
                let messages = await second.waitForRequests("chat.message")
                try await Task.sleep(for: .seconds(2))
                #expect(await second.requests("chat.message").count == 1)
                #expect(messages.first?["messageId"] == missed["id"])
                #expect(try await s.stats()["resumes"] == 1)
                #expect(try await s.violations().isEmpty)
                #expect(await second.shutdown() == 0)
            }
        }

        /// The plugin dies while pi-relayd has not yet answered a chat.message: the restarted
        /// plugin hands the same message over again from its journal, once.
        @Test(.timeLimit(.minutes(2)))
        func aMessageInFlightDuringACrashIsHandedOverAgain() async throws {
            try await Scenario.run { s in
                let first = try await s.startReady(name: "first") { method, _ in
                    if method == "chat.message" { try? await Task.sleep(for: .seconds(120)) }
                    return .result(["status": "prompted"])
                }
                let sent = try await s.say("do not lose me")
                #expect(await first.waitForRequests("chat.message").count == 1)
                #expect(await first.kill9() == 137)
                let second = try await s.startPlugin(name: "second")
                let again = await second.waitForRequests("chat.message")
                try await Task.sleep(for: .seconds(2))
                #expect(await second.requests("chat.message").count == 1)
                #expect(again.first?["messageId"] == sent["id"])
                #expect(again.first?["text"] == "do not lose me")
                #expect(await second.shutdown() == 0)
            }
        }

        /// Heartbeat ACKs stop (a zombie connection): the plugin notices at its next heartbeat,
        /// closes with a non-1000 code and resumes on a new connection; messages keep flowing.
        @Test(.timeLimit(.minutes(2)))
        func zombieConnectionIsReplacedAndResumed() async throws {
            // Heartbeats every 2 s so the zombie is seen soon; the other scenarios beat every 5 s,
            // so that a loaded machine's late beat or late ACK costs no resume they count.
            try await Scenario.run(heartbeatMs: 2000) { s in
                let plugin = try await s.startReady()
                let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                try await s.fake.post("/gateway/drop_acks", ["enabled": true])
                #expect(try await s.fake.wait("for=resumed&since=\(cursor)", timeout: 20) != nil, "\(plugin.stderr())")
                let closes = try await s.fake.get("/transcript?kind=ws_close_recv&since=\(cursor)")["events"]?.arrayValue ?? []
                let code = closes.first?["code"]?.intValue ?? 0
                #expect(code != 1000 && code != 1001 && code != 0)
                #expect(try await s.stats()["identifies"] == 1)
                try await s.say("still there?")
                #expect(await plugin.waitForRequests("chat.message").first?["text"] == "still there?")
                #expect(plugin.stderr().contains("zombie"))
                #expect(await plugin.shutdown() == 0)
                s.expectTokenNeverLogged()
            }
        }

        /// op 7 Reconnect and op 9 (resumable) both end in a RESUME, op 9 (not resumable) in a new
        /// IDENTIFY.
        @Test(.timeLimit(.minutes(2)))
        func reconnectAndInvalidSession() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                var cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                try await s.fake.post("/gateway/reconnect", ["close_after_ms": 0])
                #expect(try await s.fake.wait("for=resumed&since=\(cursor)") != nil)
                cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                try await s.fake.post("/gateway/invalid_session", ["resumable": true])
                #expect(try await s.fake.wait("for=resumed&since=\(cursor)") != nil)
                cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                try await s.fake.post("/gateway/invalid_session", ["resumable": false])
                #expect(try await s.fake.wait("for=ready&since=\(cursor)", timeout: 20) != nil)
                let stats = try await s.stats()
                #expect(stats["identifies"] == 2)
                #expect(stats["resumes"] == 2)
                // It once failed under ThreadSanitizer alone, with no report: say what the plugin said.
                let status = await plugin.shutdown()
                #expect(status == 0, "exit \(status); the plugin's stderr ends: \(String(plugin.stderr().suffix(3000)))")
            }
        }

        /// Close 4004 (bad token) ends the plugin with exit 78 and a message saying what to fix.
        @Test(.timeLimit(.minutes(2)))
        func close4004ExitsNotConfigured() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                try await s.fake.post("/gateway/close", ["code": 4004])
                #expect(await plugin.exited(within: .seconds(15)) == 78)
                let log = plugin.stderr()
                #expect(log.contains("not configured: Discord rejected the bot token (gateway close 4004"))
                #expect(log.contains("DISCORD_BOT_TOKEN"))
                s.expectTokenNeverLogged()
            }
        }

        /// Without the Message Content intent enabled, Discord closes with 4014: exit 78 and the
        /// Developer Portal switch to turn on.
        @Test(.timeLimit(.minutes(2)))
        func close4014ExitsWithThePortalHint() async throws {
            try await Scenario.run { s in
                try await s.fake.post("/config", ["message_content_enabled": false])
                let plugin = try await s.startPlugin()
                #expect(await plugin.exited(within: .seconds(20)) == 78)
                let log = plugin.stderr()
                #expect(log.contains("gateway close 4014"))
                #expect(log.contains("MESSAGE CONTENT INTENT"))
                s.expectTokenNeverLogged()
            }
        }

        /// A wrong token is refused by REST already (401 on /gateway/bot): exit 78, the token
        /// nowhere in the log.
        @Test(.timeLimit(.minutes(2)))
        func wrongTokenExitsNotConfigured() async throws {
            try await Scenario.run { s in
                let wrong = "WRONG.token-value.abcdefghijkl"
                let plugin = try await s.startPlugin(token: wrong)
                #expect(await plugin.exited(within: .seconds(20)) == 78)
                let log = plugin.stderr()
                #expect(log.contains("Discord rejected the bot token (HTTP 401"))
                #expect(!log.contains(wrong) && !log.contains("abcdefghijkl"))
            }
        }

        /// No token at all: exit 78 at once with the documented message.
        @Test(.timeLimit(.minutes(1)))
        func noTokenExitsNotConfigured() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startPlugin(token: "")
                #expect(await plugin.exited(within: .seconds(10)) == 78)
                #expect(plugin.stderr().contains("no Discord bot token: set DISCORD_BOT_TOKEN (or discord.tokenEnv), or run pi-relayd setup discord"))
            }
        }

        /// chat.presence becomes an op 3 "Watching <text>".
        @Test(.timeLimit(.minutes(1)))
        func presenceIsWatching() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                await plugin.notify("chat.presence", ["text": "api (claude-sonnet)"])
                let found = try await s.eventually {
                    try await s.fake.get("/presences")["presences"]?.arrayValue?.first { $0["via"] == "op3" }
                }
                #expect(found?["activities"] == [["name": "api (claude-sonnet)", "type": 3]])
                #expect(await plugin.shutdown() == 0)
            }
        }
    }
}

extension Scenarios {
    @Suite("Proxy", .serialized)
    struct ProxyScenarios {
        /// REST and the gateway both go through the configured proxy: HTTP CONNECT with Basic
        /// credentials, and SOCKS5 (the proxy resolves the name).
        @Test(.timeLimit(.minutes(2)), arguments: ["http://relay:s3cret@127.0.0.1:PORT", "socks5h://127.0.0.1:PORT"])
        func restAndGatewayGoThroughTheProxy(template: String) async throws {
            try await Scenario.run { s in
                let proxy = try await TestProxy(folder: s.folder.path)
                do {
                    try await check(s, proxy, template)
                } catch {
                    await proxy.stop()
                    throw error
                }
                await proxy.stop()
            }
        }

        private func check(_ s: Scenario, _ proxy: TestProxy, _ template: String) async throws {
            var config = s.config
            config["proxy"] = .string(template.replacingOccurrences(of: "PORT", with: String(proxy.port)))
            let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
            let plugin = try await s.startPlugin(config: config)
            #expect(try await s.fake.wait("for=ready&since=\(cursor)") != nil, "\(plugin.stderr())")
            try await s.say("through the proxy")
            #expect(await plugin.waitForRequests("chat.message").first?["text"] == "through the proxy")
            let lines = proxy.log
            let fakeTarget = "127.0.0.1:\(s.fake.port)"
            #expect(lines.filter { $0.contains(fakeTarget) }.count >= 2, "REST and gateway tunnels: \(lines)")
            if template.hasPrefix("http") {
                #expect(lines.allSatisfy { $0.hasPrefix("CONNECT") && $0.hasSuffix("auth=Basic cmVsYXk6czNjcmV0") }, "\(lines)")
            } else {
                #expect(lines.allSatisfy { $0.hasPrefix("SOCKS5") }, "\(lines)")
            }
            #expect(!plugin.stderr().contains("s3cret"))
            #expect(await plugin.shutdown() == 0)
        }
    }
}
