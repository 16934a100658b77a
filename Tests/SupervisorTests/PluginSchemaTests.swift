import PiRelaySDK
import Testing

@testable import Supervisor

/// The schemas the bundled plugins declare travel in their hello and read back the same, and a
/// schema pi-relayd cannot read is refused rather than its section passed on unchecked.
@Suite struct PluginSchemaTests {
    @Test func everyBundledHelloReadsBackTheSame() throws {
        for (name, hello) in BundledHellos.byName {
            let line = WireMessage.hello(hello).encodedLine()
            #expect(try WireMessage.decode(Array(line.dropLast())) == .hello(hello), "\(name)")
            #expect(hello.config != nil, "\(name) declares its section")
        }
        for name in ["discord", "telegram", "slack"] {
            #expect(BundledHellos.byName[name]?.setup != nil, "\(name) declares its setup text")
            #expect(BundledHellos.byName[name]?.config?.secrets.isEmpty == false, "\(name) declares its token")
        }
    }

    @Test func aHelloWithAnUnknownConfigTypeIsRefused() {
        let line = #"{"type":"hello","protocol":1,"name":"x","roles":[],"config":{"keys":[{"key":"colour","type":"rgb"}]}}"#
        #expect(throws: (any Error).self) { try WireMessage.decode(Array(line.utf8)) }
    }

    /// Slack's ids start with their kind's letter, so a YAML number is no Slack id; the setup
    /// text and its tokens are Slack's own.
    @Test func slackTokensAndTextComeFromItsHello() throws {
        let home = ConfigTestHome()
        let error = try #require(home.loadError(yaml: "slack:\n  allowedUsers: [12345]\n", knownPlugins: ["slack"]))
        #expect(error.description.hasSuffix("2:18: slack.allowedUsers[0] must be a Slack member id (U…), got a number"), "\(error)")
        let slack = try #require(BundledHellos.byName["slack"])
        let kind = SetupMessenger(name: "slack", path: "/x", hello: slack, setup: try #require(slack.setup))
        #expect(kind.tokens.map(\.defaultEnv) == ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"])
        #expect(kind.tokens.map(\.prefix) == ["xoxb-", "xapp-"])
        #expect(kind.tokenVariable(["botTokenEnv": "MY_BOT"]) == "MY_BOT")
        #expect(kind.setup.manifest?.contains("socket_mode_enabled: true") == true)
    }

    /// `sharedRooms`, on every messenger: the word `all` or a list of the messenger's ids, checked
    /// with their place in the file; the plugin gets `"all"` or the ids as strings.
    @Test func sharedRoomsIsAllOrAListOfIDs() throws {
        let home = ConfigTestHome()
        let word = try #require(home.loadError(yaml: "telegram:\n  sharedRooms: some\n", knownPlugins: ["telegram"]))
        #expect(word.description.hasSuffix("2:16: telegram.sharedRooms must be all, or a list of Telegram chat ids, got a string"), "\(word)")
        let id = try #require(home.loadError(yaml: "discord:\n  sharedRooms: [general]\n", knownPlugins: ["discord"]))
        #expect(id.description.contains("2:17: discord.sharedRooms[0] must be a Discord channel id"), "\(id)")
        let slack = try #require(BundledHellos.byName["slack"]?.config)
        let key = try #require(slack.keys.first { $0.name == "sharedRooms" })
        guard case .allOrList(.id, let what) = key.type else {
            Issue.record("slack.sharedRooms is \(key.type)")
            return
        }
        #expect(what == "a list of Slack channel ids")
        #expect(try ConfigKey(json: key.json) == key, "the type travels in the hello")
        #expect(SharedRooms("all") == .all && SharedRooms(["-100", 7]) == .listed(["-100", "7"]) && SharedRooms(nil).isEmpty)
        #expect(SharedRooms.all.contains("C1", dm: false) && !SharedRooms.all.contains("D1", dm: true))
    }
}
