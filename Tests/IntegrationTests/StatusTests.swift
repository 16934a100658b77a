import Foundation
import PiRelaySDK
import Testing

/// `pi-relayd status` says why a plugin is down, and its exit status tells a script (or a
/// monitoring check) that one has failed.
@Suite struct StatusTests {
    @Test func statusShowsWhyPluginsAreDownAndExitsTwoWhenOneFailed() async throws {
        let config = TestConfig(initialBackoffMs: 50, crashLoopCount: 2)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake("fake-notconfigured")
            let daemon = try await home.startDaemon()
            _ = try await daemon.waitForPlugin("fake-notconfigured", "is not-configured") { $0.state == "not-configured" }

            let healthy = try await home.run("status")
            #expect(healthy.status == 0, "not configured is no failure: \(healthy)")
            #expect(healthy.stdout.contains("  fake-notconfigured not-configured: no token configured"), "\(healthy)")

            try home.installFake("fake-crash")
            _ = try await home.run("plugins", "reload")
            _ = try await daemon.waitForPlugin("fake-crash", "is marked failed", timeout: .seconds(30)) { $0.state == "failed" }

            let failed = try await home.run("status")
            #expect(failed.status == 2, "\(failed)")
            #expect(failed.stdout.contains("  fake-crash failed: crash loop: 2 crashes within 180 s"), "\(failed)")
            let json = try await home.run("status", "--json")
            #expect(json.status == 2, "\(json)")
            let crash = try json.json()["plugins"]?.arrayValue?.first { $0["name"] == "fake-crash" }
            #expect(crash?["reason"]?.stringValue?.contains("crash loop") == true, "\(json)")
        }
    }
}
