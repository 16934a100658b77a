import Foundation
import PiRelaySDK
import Testing

/// Issue 6 point 11, the gateway (point 1) through the real daemon: a close code that no
/// reconnect can fix stops the discord plugin with exit 78, and the daemon shows it as not
/// configured with what to fix instead of restarting it in a loop.
@Suite struct StackGatewayTests {
    /// The Message Content intent is switched off in the Developer Portal while the bot runs,
    /// and Discord ends the session: the plugin identifies anew and is closed with 4014. It
    /// stops; `pi-relayd plugins` shows discord not configured, saying which intent to enable
    /// where, and it stays down.
    @Test(.timeLimit(.minutes(5)))
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
}
