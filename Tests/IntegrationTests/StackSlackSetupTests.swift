import Foundation
import PiRelaySDK
import Testing

/// `pi-relayd setup slack` through the real CLI and the real slack plugin against the fake
/// Slack: both tokens checked by the plugin (auth.test with the bot token, apps.connections.open
/// with the app-level one), saved in .env only when Slack takes both, never printed; the app
/// manifest printed for someone who has no app yet.
@Suite struct StackSlackSetupTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func bothTokensAreCheckedThroughThePluginAndSaved() async throws {
        try await TestHome.with { home in
            let fake = try await StackFake.slack(
                folder: home.scratch, arguments: ["--bot-token", SlackStack.botToken, "--app-token", SlackStack.appToken])
            try await StackSetupTests.with(fake) {
                try StackSetupTests.prepare(home, plugin: "slack", apiBase: fake.apiBase, env: "# mine\nKEEP=1\n")
                let quiet = StackSetupTests.quiet

                let manifest = try await home.run("setup", "slack", "--manifest")
                let document = try String(contentsOfFile: RepoPaths.root + "/docs/slack-app-manifest.yaml", encoding: .utf8)
                #expect(manifest.status == 0 && manifest.stdout == document, "the manifest as docs/slack-app-manifest.yaml has it: \(manifest)")

                let wrongApp = "xapp-1-A0FAKEAPP-0000-wrongAppTokenForSetup"
                let refused = try await home.run(
                    ["setup", "slack", "--token-stdin"], input: SlackStack.botToken + "\n" + wrongApp + "\n", extra: quiet)
                #expect(refused.status == 1 && refused.stderr.contains("app-level token") && refused.stderr.contains("SLACK_APP_TOKEN"), "\(refused)")
                #expect(home.read(".env") == "# mine\nKEEP=1\n", "nothing saved when one token is refused")

                let swapped = try await home.run(["setup", "slack", "--token-stdin"], input: SlackStack.appToken + "\n", extra: quiet)
                #expect(swapped.status == 1 && swapped.stderr.contains("xoxb-"), "\(swapped)")

                let good = try await home.run(
                    ["setup", "slack", "--token-stdin"], input: SlackStack.appToken + "\n" + SlackStack.botToken + "\n", extra: quiet)
                #expect(good.status == 0, "\(good)")
                #expect(good.stdout.contains("✓ Slack accepted the token: bot pi-relay"), "\(good)")
                #expect(good.stdout.contains("app_redirect?channel=U0BOTUSER"), "\(good)")
                #expect(StackSetupTests.mode(home.path + "/.env") == 0o600)
                #expect(
                    home.read(".env") == "# mine\nKEEP=1\nSLACK_BOT_TOKEN=\(SlackStack.botToken)\nSLACK_APP_TOKEN=\(SlackStack.appToken)\n",
                    "\(home.read(".env"))")

                // Without tokens and without a terminal: the steps and the manifest, then what to do.
                let bare = try await home.run(["setup", "slack"], input: "", extra: quiet)
                #expect(bare.status == 1 && bare.stderr.contains("From a manifest") && bare.stderr.contains("socket_mode_enabled: true"), "\(bare)")
                #expect(bare.stderr.contains("--token-stdin (one token a line)"), "\(bare)")
                let connects = try await fake.get("/log?kind=hello")["log"]?.arrayValue ?? []
                #expect(connects.isEmpty, "setup checks the app token without opening a socket")
                for result in [refused, good, bare] {
                    for needle in [SlackStack.botToken, SlackStack.appToken, String(SlackStack.botToken.suffix(12))] {
                        #expect(!result.stdout.contains(needle) && !result.stderr.contains(needle), "a token printed by \(result.arguments)")
                    }
                }
            }
        }
    }
}
