import PiRelaySDK
import Testing

@testable import Supervisor

/// The slack section is checked by the daemon and handed to the plugin as checked, as the
/// telegram one is.
@Suite struct SlackSettingsTests {
    @Test func theSlackSectionIsCheckedAndNormalised() throws {
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: """
                slack:
                  allowedUsers: [U0123ABCD, W0456EFGH]
                  requireMention: no
                  channels:
                    - {id: C0123ABCD, cwd: ~/src/api, name: api}
                """, knownPlugins: ["slack"], environment: ["HOME": "/home/me"])
        #expect(loaded.warnings == [])
        #expect(loaded.config.pluginSections["slack"]?["allowedUsers"] == ["U0123ABCD", "W0456EFGH"])
        let section = try #require(loaded.config.pluginSections["slack"])
        #expect(section["requireMention"] == .bool(false))
        #expect(section["channels"]?[0]?["id"] == "C0123ABCD" && section["channels"]?[0]?["cwd"] == "/home/me/src/api", "\(section)")
    }

    @Test func aUserNameOrAChannelNameIsRefusedWithItsLine() throws {
        let home = ConfigTestHome()
        let user = try #require(home.loadError(yaml: "slack:\n  allowedUsers: [alice]\n", knownPlugins: ["slack"]))
        #expect(user.description.contains(":2:") && user.description.contains("Slack member id"), "\(user)")
        let channel = try #require(home.loadError(yaml: "slack:\n  channels:\n    - {id: general}\n", knownPlugins: ["slack"]))
        #expect(channel.description.contains(":3:") && channel.description.contains("Slack channel id"), "\(channel)")
        let typo = try home.load(yaml: "slack:\n  requireMentoin: false\n", knownPlugins: ["slack"])
        #expect(typo.warnings.contains { $0.contains("requireMentoin") }, "\(typo.warnings)")
    }
}
