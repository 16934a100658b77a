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
        let sections = PluginSections(config: loaded.config, environment: ["SLACK_APP_TOKEN": "xapp-1", "TELEGRAM_BOT_TOKEN": ""])
        for name in ["telegram", "slack"] { _ = try sections.check(plugin: name, hello: try #require(BundledHellos.byName[name])) }
        #expect(!sections.hasSecretSet("discord"), "a section without its token")
        #expect(sections.hasSecretSet("slack"), "a variable its schema names for a secret is set")
        #expect(!sections.hasSecretSet("telegram"), "an empty variable")
        #expect(!sections.hasSecretSet("web"), "no section, no hello")
    }

    @Test func statusFailsForANotConfiguredPluginOnlyWhenItsTokenIsSet() {
        #expect(StatusCommand.hasFailed(["state": "failed"]))
        #expect(StatusCommand.hasFailed(["state": "not-configured", "tokenSet": true]))
        #expect(!StatusCommand.hasFailed(["state": "not-configured", "tokenSet": false]))
        #expect(!StatusCommand.hasFailed(["state": "not-configured"]))
        #expect(!StatusCommand.hasFailed(["state": "running"]))
    }
}
