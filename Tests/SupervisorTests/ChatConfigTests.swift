import Testing

@testable import Supervisor

/// `chat:` and `notify:` (issue 17): defaults, values, and a wrong value stopping the start with
/// its place.
@Suite struct ChatConfigTests {
    @Test func defaultsWhenAbsent() throws {
        let config = try ConfigTestHome().load(yaml: "logs:\n  level: info\n").config
        #expect(config.chat == ChatSettings())
        #expect(config.chat.progress == .normal && config.chat.senderPrefix == nil)
        #expect(config.notify.longRunSeconds == .seconds(120) && config.notify.mentions)
    }

    @Test func valuesAreRead() throws {
        let yaml = "chat:\n  progress: completion-only\n  senderPrefix: \"[{name}] \"\nnotify:\n  longRunSeconds: 30\n  mentions: off\n"
        let loaded = try ConfigTestHome().load(yaml: yaml)
        #expect(loaded.warnings == [])
        #expect(loaded.config.chat.progress == .completionOnly)
        #expect(loaded.config.chat.senderPrefix == "[{name}] ")
        #expect(loaded.config.notify.longRunSeconds == .seconds(30))
        #expect(loaded.config.notify.mentions == false)
    }

    @Test(arguments: [
        ("chat:\n  progress: loud\n", "chat.progress must be one of: quiet, normal, verbose, completion-only"),
        ("notify:\n  longRunSeconds: -5\n", "notify.longRunSeconds"),
        ("chat:\n  senderPrefix: 3\n", "chat.senderPrefix"),
    ])
    func wrongValuesStopTheStart(yaml: String, expected: String) throws {
        let error = try #require(ConfigTestHome().loadError(yaml: yaml))
        #expect(error.description.contains(expected), "\(error)")
    }

    @Test func aTypoIsNamed() throws {
        let loaded = try ConfigTestHome().load(yaml: "notify:\n  longRunSecs: 5\n")
        #expect(loaded.warnings.contains { $0.contains("unknown key 'longRunSecs' in notify") }, "\(loaded.warnings)")
    }
}
