import Foundation
import Testing

@testable import WebPlugin

/// The inert runner's overrides go after the settings the owner's environment gives git
/// (`GIT_CONFIG_COUNT`, `safe.directory` in a container, say): it adds to them, never hides them.
@Suite struct GitRunnerTests {
    @Test func theOwnersEnvironmentSettingsStay() async throws {
        let folder = NSTemporaryDirectory() + "git-runner-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = await GitRunner(cwd: folder).run(["init", "-q"])
        _ = await GitRunner(cwd: folder).run(["config", "filter.evil.clean", "false"])
        let owner = ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "relay.test", "GIT_CONFIG_VALUE_0": "kept"]
        let git = try #require(await GitRunner.inert(cwd: folder, environment: owner))
        #expect(await git.run(["config", "relay.test"]).lines == ["kept"])
        #expect(await git.run(["config", "filter.evil.clean"]).lines == [""], "the repository's filter is made inert")
    }
}
