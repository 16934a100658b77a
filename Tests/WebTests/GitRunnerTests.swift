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

    /// The repository's settings name no transport the dashboard's git may use: its own
    /// `protocol.ext.allow=always` beats the runner's `protocol.allow=never`, and `ext::` runs a
    /// command. Only `GIT_ALLOW_PROTOCOL` beats every setting (and a git without
    /// `GIT_NO_LAZY_FETCH` would fetch a partial clone's missing objects through it).
    @Test func noTransportRunsWhateverTheRepositorySays() async throws {
        let folder = NSTemporaryDirectory() + "git-runner-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = await GitRunner(cwd: folder).run(["init", "-q"])
        _ = await GitRunner(cwd: folder).run(["config", "protocol.ext.allow", "always"])
        let marker = folder + "/ran"
        let fetched = await GitRunner(cwd: folder).run(["ls-remote", "ext::sh -c touch% " + marker])
        #expect(fetched.status != 0 && !FileManager.default.fileExists(atPath: marker), "\(fetched.stderr)")
    }

    /// A work tree set elsewhere (`core.worktree`, which the agent can write) would have `status`
    /// and `add -A -- .` read that folder, `$HOME` or `/`: nothing is run for such a session
    /// folder. The folder that holds `.git`, named, is read as before.
    @Test func aWorkTreeSetElsewhereIsNotRead() async throws {
        let folder = NSTemporaryDirectory() + "git-runner-\(UUID().uuidString)"
        let repo = folder + "/repo"
        try FileManager.default.createDirectory(atPath: repo + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/outside", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "private".write(toFile: folder + "/outside/notes.txt", atomically: true, encoding: .utf8)
        _ = await GitRunner(cwd: repo).run(["init", "-q"])
        _ = await GitRunner(cwd: repo).run(["config", "core.worktree", repo])
        #expect(await GitRunner.inert(cwd: repo + "/sub") != nil, "its own top folder, named")
        _ = await GitRunner(cwd: repo).run(["config", "core.worktree", folder + "/outside"])
        #expect(await GitRunner.inert(cwd: repo) == nil)
        #expect(await GitSummary.read(repo) == nil)
        // One above the folder (`$HOME`, `/`) holds the folder, and all the rest with it.
        _ = await GitRunner(cwd: repo).run(["config", "core.worktree", folder])
        #expect(await GitRunner.inert(cwd: repo) == nil)
        #expect(await GitSummary.read(repo) == nil)
    }
}
