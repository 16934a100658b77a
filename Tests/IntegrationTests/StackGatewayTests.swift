import Foundation
import PiRelaySDK
import Testing

/// Issue 6 point 11, the gateway (point 1) through the real daemon: reconnect requests and
/// zombie connections end in a RESUME of the same session; a close code that no reconnect can
/// fix stops the discord plugin with exit 78, and the daemon shows it as not configured with
/// what to fix instead of restarting it in a loop.
@Suite struct StackGatewayTests {
    /// The Message Content intent is switched off in the Developer Portal while the bot runs,
    /// and Discord ends the session: the plugin identifies anew and is closed with 4014. It
    /// stops; `pi-relayd plugins` shows discord not configured, saying which intent to enable
    /// where, and it stays down.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aRefusedIntentStopsThePluginWithWhatToFix() async throws {
        try await StackHome.with { stack in
            let daemon = try await stack.start()
            try await stack.fake.post("/config", ["message_content_enabled": false])
            try await stack.fake.post("/gateway/invalid_session", ["resumable": false])
            let info = try await daemon.waitForPlugin("discord", "is not configured", timeout: .seconds(60)) { $0.state == "not-configured" }
            let said = ([info.reason] + info.lastStderr).joined(separator: "\n")
            #expect(said.contains("MESSAGE CONTENT INTENT") && said.contains("Developer Portal"), "\(info)")
            let closes = try await stack.fake.get("/transcript?kind=ws_close_sent")["events"]?.arrayValue ?? []
            #expect(closes.contains { $0.serialized().contains("4014") }, "Discord closed the gateway with 4014: \(closes)")

            // Longer than the harness's restart back-off: a plugin restarted in a loop would be back.
            try await Task.sleep(for: .seconds(3))
            let later = try #require(try await daemon.plugins()["discord"])
            #expect(later.state == "not-configured" && later.restarts == info.restarts, "\(later)")
            // The one violation is the one this test provoked: the plugin asked for the intent
            // Discord no longer allows. Cleared, so the harness's own check sees nothing else.
            let violations = try await stack.fake.violations()
            #expect(violations.count == 1 && violations.first?["kind"] == "gateway_identify", "\(violations)")
            try await stack.fake.post("/clear")
        }
    }

    /// While an answer streams, Discord asks the bot to reconnect (op 7), then the connection
    /// turns into a zombie (heartbeats no longer acknowledged): each time the plugin reconnects
    /// and RESUMEs the same session (no new identify), a DM written meanwhile is answered, and
    /// every chunk of the answer shows once.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func reconnectsAndZombieConnectionsResumeTheSession() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "gw"])
            try await stack.dm("!scenario slow 200 60")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 5 ")
            let identifies = try await stack.fake.get("/stats")["identifies"]?.intValue

            var since = try await stack.fake.cursor
            try await stack.fake.post("/gateway/reconnect", ["close_after_ms": 3000])
            guard try await stack.fake.wait("for=resumed&since=\(since)", timeout: 60) != nil else {
                throw StackFailure("no RESUME after op 7:\n\(stack.home.pluginLog("discord").suffix(3000))")
            }
            try await stack.dm("after the reconnect")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: after the reconnect", timeout: 90)

            since = try await stack.fake.cursor
            try await stack.fake.post("/gateway/drop_acks", ["enabled": true])
            // Heartbeats every 5 s here: a missed ACK shows within two intervals.
            guard try await stack.fake.wait("for=resumed&since=\(since)", timeout: 60) != nil else {
                throw StackFailure("no RESUME after the zombie connection:\n\(stack.home.pluginLog("discord").suffix(3000))")
            }
            try await stack.dm("after the zombie")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: after the zombie", timeout: 90)
            try await stack.waitForState("gw", "idle", timeout: .seconds(90))
            try await Task.sleep(for: .seconds(1))

            #expect(try await stack.fake.get("/stats")["identifies"]?.intValue == identifies, "resumed, never identified again")
            let all = try await stack.botMessages(dm).compactMap { $0["content"]?.stringValue }.joined(separator: "\n")
            for n in 1...200 {
                let count = all.components(separatedBy: "chunk \(n) ").count - 1
                #expect(count == 1, "chunk \(n) shows \(count) times")
            }
            #expect(stack.piPrompts(containing: "after the reconnect").count == 1 && stack.piPrompts(containing: "after the zombie").count == 1)
        }
    }

    /// discord-api.md §6: stop using a token after 401. Reset while a run streams: the answer
    /// REST refuses is not dropped; it stays with pi-relayd for the new token, and the plugin
    /// ends as not configured, naming the variable.
    @Test func aTokenResetWhileRunningKeepsTheAnswerAndStopsThePlugin() async throws {
        try await StackHome.with { stack in
            let daemon = try await stack.start()
            _ = try await StackChatExperienceTests.boundDM(stack)
            try await stack.dm("!scenario slow 40 250")
            try await stack.waitForState("api", "busy", timeout: .seconds(30))
            _ = try await stack.fake.post("/token/reset")
            try await daemon.expectTokenRefused("discord", saying: "HTTP 401", naming: "DISCORD_BOT_TOKEN") { stack.home.pluginLog("discord") }
        }
    }

    /// discord-api.md §6, §8 item 1: the token reset, then a command typed in a DM. Its reply,
    /// refused with the token, stays in the plugin's inbox: a start with the old token still
    /// keeps it (the inbox resumes before the gateway finds the token refused), and the start
    /// with the new one shows it, once.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aReplyTheResetTokenKeptIsShownOnceTheNewTokenIsIn() async throws {
        try await StackHome.with { stack in
            let first = try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.fake.post("/token/reset")
            _ = try await stack.dm("/sessions")
            _ = try await first.waitForPlugin("discord", "not configured", timeout: .seconds(60)) { $0.state == "not-configured" }
            #expect(try await stack.botMessages(dm).isEmpty, "nothing could be posted")
            _ = await first.terminate()

            let old = try await stack.start(discord: false)
            let info = try await old.waitForPlugin("discord", "not configured", timeout: .seconds(60)) { $0.state == "not-configured" }
            #expect(info.reason.contains("DISCORD_BOT_TOKEN"), "\(info)")
            _ = await old.terminate()

            try await stack.start(environment: ["DISCORD_BOT_TOKEN": StackHome.token + "-reset"], freshCommands: false)
            try await stack.waitForBotMessage(in: dm, containing: "No sessions on")
            try await Task.sleep(for: .seconds(2))
            let shown = try await stack.botMessages(dm).filter { $0["content"]?.stringValue?.contains("No sessions on") == true }
            #expect(shown.count == 1, "\(shown)")
        }
    }

    /// A bot token Discord does not accept: the plugin stops at its first request (401) instead
    /// of retrying, the daemon shows discord not configured with what to do about the token,
    /// and the rejected token is written nowhere either.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aRejectedTokenStopsThePluginWithWhatToFix() async throws {
        try await StackHome.with { stack in
            let wrong = "WRONG.MTQ0MDAwMDAwMDAwMDA.Zz9Yy8.xX7wW6vV5uU4tT3sS2rR1qQ0pP"
            let daemon = try await stack.start(environment: ["DISCORD_BOT_TOKEN": wrong], discord: false)
            let info = try await daemon.waitForPlugin("discord", "is not configured", timeout: .seconds(60)) { $0.state == "not-configured" }
            let said = ([info.reason] + info.lastStderr).joined(separator: "\n")
            #expect(said.contains("Discord rejected the bot token") && said.contains("DISCORD_BOT_TOKEN"), "\(info)")
            let refused = try await stack.fake.get("/requests?status=401")["requests"]?.arrayValue ?? []
            #expect(refused.count == 1, "one request, then it stopped: \(refused.count)")
            #expect(try await stack.fake.get("/gateway")["connections"]?.arrayValue?.isEmpty == true, "it never opened the gateway")
            try await Task.sleep(for: .seconds(3))
            #expect(try await daemon.plugins()["discord"]?.restarts == info.restarts, "not restarted")
            _ = try await stack.cli(["plugins"])
            _ = try await stack.cli(["logs", "discord"])
            stack.expectTokenNowhere(wrong)
        }
    }
}
