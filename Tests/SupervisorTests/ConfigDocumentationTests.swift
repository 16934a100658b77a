import Foundation
import Testing

@testable import Supervisor

/// docs/CONFIG.md is what newcomers copy from, so its examples must load.
@Suite struct ConfigDocumentationTests {
    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/CONFIG.md").standardized.path

    /// The bodies of the ```yaml blocks, in order.
    static func yamlBlocks() throws -> [String] {
        let text = try String(contentsOfFile: documentPath, encoding: .utf8)
        var blocks: [String] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```yaml" {
                current = []
            } else if let lines = current, trimmed == "```" {
                // Blocks inside list items are indented; YAML does not mind a common indent.
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current?.append(String(line))
            }
        }
        return blocks
    }

    @Test func theDiscordExampleLoadsCleanly() throws {
        let example = try #require(try Self.yamlBlocks().first)
        let home = ConfigTestHome()
        let loaded = try home.load(
            yaml: example, knownPlugins: ["discord", "formatter", "attachments"],
            environment: ["HOME": "/home/me", "DISCORD_BOT_TOKEN": "t"])
        #expect(loaded.warnings == [])
        #expect(loaded.notConfigured == [])
        let discord = loaded.config.section(forPlugin: "discord")
        #expect(discord["allowedUsers"] == ["123456789012345678"])
        #expect((discord["channels"]?.arrayValue ?? []).compactMap { $0["cwd"]?.stringValue } == ["/home/me/src/api", "/home/me/src/website"])
        #expect(loaded.config.sessions.defaultCwd == "/home/me/src")
        #expect(loaded.config.pi.dialogTimeout == .seconds(600))
    }

    @Test func everyYAMLExampleParses() throws {
        let blocks = try Self.yamlBlocks()
        #expect(blocks.count >= 2)
        for block in blocks {
            let home = ConfigTestHome()
            #expect(throws: Never.self, "\(block)") {
                _ = try home.load(yaml: block, knownPlugins: ["discord"], environment: ["HOME": "/home/me"])
            }
        }
    }
}
