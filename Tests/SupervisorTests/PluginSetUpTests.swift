import PiRelaySDK
import Testing

@testable import Supervisor
@testable import SupervisorCLI

/// `pi-relayd status` exits 2 for a not-configured plugin only when the owner set it up: a
/// bundled messenger nobody uses is not a failure, one whose token was refused (at start or
/// while it ran) is.
@Suite struct PluginSetUpTests {
    @Test func aPluginIsSetUpByItsSectionOrItsTokensVariable() throws {
        let loaded = try ConfigTestHome().load(yaml: "discord:\n  tokenEnv: PSU_DISCORD\n", knownPlugins: ["discord", "telegram", "slack"])
        let sections = PluginSections(config: loaded.config, environment: ["SLACK_APP_TOKEN": "xapp-1", "TELEGRAM_BOT_TOKEN": ""])
        for name in ["telegram", "slack"] { _ = try sections.check(plugin: name, hello: try #require(BundledHellos.byName[name])) }
        #expect(sections.isSetUp("discord"), "its section")
        #expect(sections.isSetUp("slack"), "a variable its schema names for a secret is set")
        #expect(!sections.isSetUp("telegram"), "an empty variable sets nothing up")
        #expect(!sections.isSetUp("web"), "no section, no hello")
    }

    @Test func statusFailsForANotConfiguredPluginOnlyWhenItWasSetUp() {
        #expect(StatusCommand.hasFailed(["state": "failed"]))
        #expect(StatusCommand.hasFailed(["state": "not-configured", "setUp": true]))
        #expect(!StatusCommand.hasFailed(["state": "not-configured", "setUp": false]))
        #expect(!StatusCommand.hasFailed(["state": "not-configured"]))
        #expect(!StatusCommand.hasFailed(["state": "running"]))
    }
}
