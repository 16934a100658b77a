import PiRelaySDK
import Testing

@testable import Supervisor
@testable import SupervisorCLI

/// `pi-relayd status` exits 2 for a not-configured plugin only when its token's variable is set:
/// a bundled messenger nobody uses is not a failure, one whose token was refused (at start or
/// while it ran) is.
@Suite struct PluginSetUpTests {
    @Test func aPluginsTokenIsSetByTheVariableItsSchemaNames() throws {
        let loaded = try ConfigTestHome().load(yaml: "discord:\n  tokenEnv: PSU_DISCORD\n", knownPlugins: ["discord", "telegram", "slack"])
        let sections = PluginSections(
            config: loaded.config, environment: ["SLACK_APP_TOKEN": "xapp-1", "SLACK_BOT_TOKEN": "xoxb-1", "TELEGRAM_BOT_TOKEN": ""])
        let halfway = PluginSections(config: loaded.config, environment: ["SLACK_APP_TOKEN": "xapp-1"])
        _ = try halfway.check(plugin: "slack", hello: try #require(BundledHellos.byName["slack"]))
        #expect(!halfway.hasSecretsSet("slack"), "the app token alone is a setup halfway done, not a token refused")
        for name in ["discord", "telegram", "slack"] { _ = try sections.check(plugin: name, hello: try #require(BundledHellos.byName[name])) }
        #expect(!sections.hasSecretsSet("discord"), "a section without its token")
        #expect(sections.hasSecretsSet("slack"), "every variable its schema names for a secret is set")
        #expect(!sections.hasSecretsSet("telegram"), "an empty variable")
        #expect(!sections.hasSecretsSet("web"), "no section, no hello")
    }

    @Test func statusFailsForANotConfiguredPluginOnlyWhenItsTokenIsSet() {
        #expect(StatusCommand.hasFailed(["state": "failed"]))
        #expect(StatusCommand.hasFailed(["state": "not-configured", "tokenSet": true]))
        #expect(!StatusCommand.hasFailed(["state": "not-configured", "tokenSet": false]))
        #expect(!StatusCommand.hasFailed(["state": "not-configured"]))
        #expect(!StatusCommand.hasFailed(["state": "running"]))
    }
}
