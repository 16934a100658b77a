import PiRelaySDK
import Testing

/// `pi-relayd plugin check` passes a correct plugin and fails broken ones.
@Suite struct PluginCheckTests {
    @Test func pythonExampleConforms() async throws {
        try await TestHome.with(gated: false) { home in
            let check = try await home.run("plugin", "check", RepoPaths.echoExample)
            #expect(check.status == 0, "\(check)")
            #expect(check.stdout.contains("conforms to plugin protocol v1"), "\(check)")
            #expect(!check.stdout.contains("✗"), "\(check)")
        }
    }

    @Test(arguments: [
        ("fake-hang", "answers ping with pong"),
        ("fake-garbage", "stdout carries protocol only"),
    ])
    func brokenPluginsAreReported(_ fake: String, _ failingCheck: String) async throws {
        try await TestHome.with(gated: false) { home in
            let check = try await home.run("plugin", "check", RepoPaths.fake(fake), "--json")
            #expect(check.status == 1, "\(check)")
            let report = try check.json()
            #expect(report["conforms"] == false)
            let failed = (report["checks"]?.arrayValue ?? []).filter { $0["passed"] == false }.compactMap { $0["name"]?.stringValue }
            #expect(failed.contains(failingCheck), "\(check)")
            #expect(!failed.contains("hello within 10 s"), "\(check)")
        }
    }
}
