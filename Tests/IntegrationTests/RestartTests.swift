import Foundation
import Testing

/// Crashes, backoff, crash loops and exit status 78.
@Suite struct RestartTests {
    /// "plugin NAME: restarting in N ms" lines of the daemon log, as numbers.
    static func backoffs(_ log: String, plugin: String) -> [Int] {
        let marker = "plugin \(plugin): restarting in "
        return log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: marker) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// A stop does not wait out a plugin's restart backoff: the daemon's shutdown is bounded.
    @Test func aStopDuringABackoffIsNotHeldByIt() async throws {
        let config = TestConfig(initialBackoffMs: 60_000, maxBackoffMs: 60_000, crashLoopCount: 10)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake("fake-crash")
            let daemon = try await home.startDaemon(environment: ["FAKE_CRASH_AFTER_MS": "300"])
            try await waitUntil("the plugin waits out a backoff", timeout: .seconds(30)) {
                !Self.backoffs(home.daemonLog, plugin: "fake-crash").isEmpty
            }
            let began = ContinuousClock.now
            let stop = try await home.run("stop")
            #expect(stop.status == 0, "\(stop)")
            #expect(await daemon.waitForExit() == .exited(0))
            #expect(ContinuousClock.now - began < .seconds(20), "the stop took \(ContinuousClock.now - began)")
        }
    }

    @Test func crashesAreRestartedWithDoublingBackoffUntilACrashLoopFails() async throws {
        let config = TestConfig(initialBackoffMs: 200, maxBackoffMs: 10_000, crashLoopCount: 4)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake("fake-crash")
            let daemon = try await home.startDaemon(environment: ["FAKE_CRASH_AFTER_MS": "300"])

            let failed = try await daemon.waitForPlugin("fake-crash", "is marked failed", timeout: .seconds(40)) {
                $0.state == "failed"
            }
            #expect(failed.restarts == 3, "\(failed)")
            #expect(failed.reason.contains("crash loop: 4 crashes within 180 s"), "\(failed)")
            #expect(failed.reason.contains("exited with status 3"), "\(failed)")
            #expect(failed.lastStderr.contains("fake-crash: crashing with status 3"), "\(failed)")
            #expect(failed.pid == nil)
            #expect(home.fakeEvents("welcome").count == 4)

            // The first crash is restarted at once; then backoff doubles from 200 ms, each wait
            // within the ±20 % jitter.
            let waits = Self.backoffs(home.daemonLog, plugin: "fake-crash")
            #expect(home.daemonLog.contains("plugin fake-crash: restarting at once"))
            #expect(waits.count == 2, "\(waits)")
            for (i, wait) in waits.enumerated() {
                let base = 200 << i
                #expect((base * 8 / 10)...(base * 12 / 10) ~= wait, "restart \(i + 1) waited \(wait) ms, expected \(base) ms ± 20 %")
            }
            let log = home.daemonLog
            #expect(log.contains("plugin fake-crash: spawned"))
            #expect(log.contains("plugin fake-crash: hello: fake-crash 0.0.0-fake"))
            #expect(log.contains("exited with status 3"))
            #expect(log.contains("plugin fake-crash: failed: crash loop"))
            #expect(log.contains("pi-relayd plugins restart fake-crash"), "the log says how to re-arm it")

            let table = try await home.run("plugins")
            #expect(table.stdout.contains("fake-crash\tfailed"), "\(table)")
            #expect(table.stdout.contains("    | fake-crash: crashing with status 3"), "last stderr lines: \(table)")

            // Re-armed by hand: a fresh crash window, so four more crashes before it fails again.
            let restart = try await home.run("plugins", "restart", "fake-crash")
            #expect(restart.status == 0, "\(restart)")
            try await waitUntil("the re-armed plugin is started again") { home.fakeEvents("welcome").count >= 5 }
            let again = try await daemon.waitForPlugin("fake-crash", "fails again", timeout: .seconds(40)) {
                $0.state == "failed"
            }
            #expect(home.fakeEvents("welcome").count == 8, "\(again)")
        }
    }

    @Test func exitStatus78IsNotConfiguredAndNotRestarted() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installFake("fake-notconfigured")
            let daemon = try await home.startDaemon()

            let info = try await daemon.waitForPlugin("fake-notconfigured", "is not-configured") { $0.state == "not-configured" }
            #expect(info.reason == "no token configured", "\(info)")
            #expect(info.restarts == 0)
            let status = try await home.run("status")
            #expect(status.stdout.contains("fake-notconfigured (not-configured)"), "\(status)")
            #expect(home.daemonLog.contains("exited with status 78 (not configured): no token configured"))

            // Ten backoff periods later it still ran once.
            try await Task.sleep(for: .seconds(1))
            #expect(home.fakeEvents("welcome").count == 1)
            #expect(try await daemon.plugins()["fake-notconfigured"]?.state == "not-configured")

            // `plugins restart` gives it another go (after the user configured it, say).
            let restart = try await home.run("plugins", "restart", "fake-notconfigured")
            #expect(restart.status == 0, "\(restart)")
            try await waitUntil("it is started again") { home.fakeEvents("welcome").count == 2 }
            try await daemon.waitForPlugin("fake-notconfigured", "is not-configured again") { $0.state == "not-configured" }
        }
    }

    @Test func restartOfAnUnknownPluginSaysSo() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            _ = try await home.startDaemon()
            let result = try await home.run("plugins", "restart", "nosuch")
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("no plugin named nosuch"), "\(result)")
        }
    }
}
