import Foundation
import PiRelaySDK
import Testing

/// Messenger config without per-messenger code in the supervisor: the real daemon checks each
/// bundled plugin's section against the schema the plugin's hello declares, with the loader's
/// file:line:column errors, before the welcome (docs/PROTOCOL.md §3, `config`).
@Suite struct PluginConfigSchemaTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aSectionTheSchemaRefusesParksItsPluginWithTheLineAndTheOthersRun() async throws {
        // Line 2 col 18 is the bad id; slack's section is good but has no tokens.
        let config = """
            telegram:
              allowedUsers: [alice]
            slack:
              requireMention: no
              channels: [{id: C0123ABCD, cwd: ~/src}]

            """
        try await TestHome.with(config: config) { home in
            for plugin in ["telegram", "slack"] {
                try FileManager.default.createSymbolicLink(
                    atPath: home.pluginsDir + "/" + plugin, withDestinationPath: BuildProducts.executable("pi-relay-" + plugin))
            }
            let daemon = try await home.startDaemon()
            let expected =
                "\(home.path)/config.yaml:2:18: telegram.allowedUsers[0] must be a Telegram user id: digits only (message @userinfobot to learn yours)"
            let telegram = try await daemon.waitForPlugin("telegram", "is parked for its config", timeout: .seconds(30)) {
                $0.state == "not-configured"
            }
            #expect(telegram.reason == expected, "\(telegram)")
            // Its section passed: slack got its welcome, then stopped itself for want of tokens.
            let slack = try await daemon.waitForPlugin("slack", "stopped for its tokens", timeout: .seconds(30)) { $0.state == "not-configured" }
            #expect(slack.reason.contains("SLACK_BOT_TOKEN"), "\(slack)")
            #expect(home.daemonLog.contains(expected), "the log names the line")
            // Not restarted: restarting cannot fix config.yaml.
            try await Task.sleep(for: .seconds(1))
            let spawned = home.daemonLog.split(separator: "\n").filter { $0.contains("plugin telegram: spawned") }
            #expect(spawned.count == 1, "\(spawned)")

            let status = try await home.run("status", "--json")
            let notes = (try status.json()["notes"]?.arrayValue ?? []).compactMap(\.stringValue)
            #expect(notes.contains("slack: no bot token (set SLACK_BOT_TOKEN or slack.botTokenEnv, or run pi-relayd setup slack)"), "\(notes)")
            #expect(notes.contains("slack: no app-level token (set SLACK_APP_TOKEN or slack.appTokenEnv, or run pi-relayd setup slack)"), "\(notes)")
            #expect(notes.contains { $0.hasPrefix("slack: no allowed users configured") }, "\(notes)")
        }
    }
}
