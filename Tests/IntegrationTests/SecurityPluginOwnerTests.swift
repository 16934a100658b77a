import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Plugin files that another user owns are refused and never run, whether they sit in plugins/
/// or are reached through a symlink there. (Group- and world-writable files: DiscoveryTests.)
/// Giving a file to another user takes root; other runs skip this with a note saying so.
@Suite struct SecurityPluginOwnerTests {
    static let otherUser: uid_t = 65534  // nobody

    @Test(.enabled(if: geteuid() == 0, "needs root: only root can chown a plugin file to another user (CI runs as root)"))
    func pluginsOwnedByAnotherUserNeverRun() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installFake("fake-good", as: "good")
            for name in ["foreign", "foreign-target"] {
                try home.writeFile("plugins/\(name)", DiscoveryTests.markingScript(home, name), mode: 0o755)
                #expect(chown(home.pluginsDir + "/" + name, Self.otherUser, gid_t(Self.otherUser)) == 0)
            }
            // Our own symlink to a foreign file: what runs is the target, so its owner counts.
            let target = home.scratch + "/foreign-target"
            try FileManager.default.moveItem(atPath: home.pluginsDir + "/foreign-target", toPath: target)
            try FileManager.default.createSymbolicLink(atPath: home.pluginsDir + "/foreign-link", withDestinationPath: target)

            let daemon = try await home.startDaemon()
            try await daemon.waitForRunning("good")
            let plugins = try await daemon.plugins()
            for name in ["foreign", "foreign-link"] {
                let info = try #require(plugins[name], "\(plugins.keys.sorted())")
                #expect(info.state == "refused", "\(info)")
                #expect(info.reason.contains("owned by uid \(Self.otherUser), not by this user"), "\(info)")
                #expect(info.pid == nil)
                #expect(home.daemonLog.contains("refusing plugin \(name)"), "the refusal is logged")
            }
            // A reload, a restart request and a SIGHUP do not run them either.
            _ = try await home.run("plugins", "reload")
            _ = try await home.run("plugins", "restart", "foreign")
            daemon.signal(SIGHUP)
            try await Task.sleep(for: .seconds(1))
            #expect(try await daemon.plugins()["foreign"]?.state == "refused")
            for name in ["foreign", "foreign-target"] {
                #expect(!FileManager.default.fileExists(atPath: "\(home.scratch)/ran-\(name)"), "\(name) was run")
            }
            #expect(!home.daemonLog.contains("spawned \(home.pluginsDir)/foreign"))
        }
    }
}
