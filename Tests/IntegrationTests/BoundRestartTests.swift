import Foundation
import Testing

/// A thousand crashes and restarts of one plugin leak no file descriptor and leave no zombie:
/// every spawn's pipes are closed and every child is reaped.
@Suite struct BoundRestartTests {
    static let restarts = 1000

    /// Restarts at once (1 ms backoff, no jitter) and never gives up: a crash loop needs 1000
    /// crashes within a millisecond.
    static let config = """
        plugins:
          handshakeTimeoutSeconds: 10
          pingIntervalSeconds: 5
          restart:
            initialBackoffMs: 1
            maxBackoffMs: 1
            jitter: 0
            crashLoopCount: 1000
            crashLoopWindowSeconds: 0.001

        """

    /// Installs fake-crash, lets it be restarted `count` times, and removes it again.
    static func crash(_ home: TestHome, _ daemon: Daemon, until count: Int) async throws {
        try home.installFake("fake-crash")
        #expect(try await home.run("plugins", "reload").status == 0)
        try await daemon.waitForPlugin("fake-crash", "has been restarted \(count) times") { $0.restarts >= count }
        try await remove(home, daemon)
    }

    static func remove(_ home: TestHome, _ daemon: Daemon) async throws {
        try home.removePlugin("fake-crash")
        #expect(try await home.run("plugins", "reload").status == 0)
        try await waitUntil("fake-crash is gone") { try await daemon.plugins()["fake-crash"] == nil }
        try await waitUntil("its last instance is reaped") { BoundProcessProbe.children(of: daemon.pid).isEmpty }
    }

    @Test func aThousandRestartsLeakNoDescriptorsAndNoZombies() async throws {
        try await TestHome.with(config: Self.config) { home in
            let daemon = try await home.startDaemon(environment: ["FAKE_CRASH_AFTER_MS": "0"])
            // The first spawns set up what lasts for the daemon's life (the child monitor's and the
            // I/O event loops' epoll, eventfd and timerfd): a few restarts first, then the baseline.
            try await Self.crash(home, daemon, until: 5)
            let baseline = try #require(BoundProcessProbe.openDescriptors(daemon.pid))
            let baselineTargets = BoundProcessProbe.descriptorTargets(daemon.pid)

            try home.installFake("fake-crash")
            #expect(try await home.run("plugins", "reload").status == 0)
            var peakDescriptors = baseline
            var peakZombies = 0
            var last: PluginInfo?
            try await waitUntil("fake-crash has been restarted \(Self.restarts) times", timeout: .seconds(900), every: .milliseconds(200)) {
                peakDescriptors = max(peakDescriptors, BoundProcessProbe.openDescriptors(daemon.pid) ?? 0)
                peakZombies = max(peakZombies, BoundProcessProbe.zombies(of: daemon.pid).count)
                last = try await daemon.plugins()["fake-crash"]
                return (last?.restarts ?? 0) >= Self.restarts
            }
            #expect(last?.state != "failed", "\(String(describing: last))")
            // One plugin at a time: its pipes, its log file, and the next spawn's while the last
            // instance is being closed, at most.
            #expect(peakDescriptors <= baseline + 12, "the daemon held \(peakDescriptors) descriptors, \(baseline) between runs")
            // A child is reaped as soon as it exits; at most the one that just died is seen unreaped.
            #expect(peakZombies <= 1, "\(peakZombies) unreaped children at once")

            try await Self.remove(home, daemon)
            // Closing is asynchronous (the slot's tasks wind down): give it a moment.
            let settled = try? await waitFor("the daemon is back to its descriptors from before", timeout: .seconds(10)) {
                (BoundProcessProbe.openDescriptors(daemon.pid) ?? .max) <= baseline ? true : nil
            }
            let after = BoundProcessProbe.descriptorTargets(daemon.pid)
            #expect(settled == true, "before: \(baselineTargets)\nafter: \(after)")
            #expect(BoundProcessProbe.zombies(of: daemon.pid).isEmpty)
            #expect(BoundProcessProbe.children(of: daemon.pid).isEmpty, "\(BoundProcessProbe.children(of: daemon.pid).map(\.pid))")
            #expect(home.fakeEvents("welcome").count >= Self.restarts, "each restart got as far as its welcome")
        }
    }
}
