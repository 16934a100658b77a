import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Plugins that stop answering are killed and restarted while the daemon stays responsive.
@Suite struct LivenessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let fake: String
        let environment: [String: String]
        /// How the daemon log describes the hang (any of these).
        let reasons: [String]
        /// Deliveries of this many bytes each are queued first, to fill a pipe nobody reads.
        let fill: Int
        var pingTimeoutSeconds = 2
        var testDescription: String { "\(fake), ping timeout \(pingTimeoutSeconds) s" }
    }

    @Test(arguments: [
        // Ignoring SIGTERM: only the SIGKILL to its process group can end it.
        Case(fake: "fake-hang", environment: ["FAKE_IGNORE_SIGTERM": "1"], reasons: ["missed pongs for 2 s"], fill: 0),
        Case(fake: "fake-noread", environment: [:], reasons: ["missed pongs for 2 s", "is not reading its stdin"], fill: 100_000),
        // Pings too patient to notice: the stalled write queue (over 1 MiB for 10 s) gives it away.
        Case(fake: "fake-noread", environment: [:], reasons: ["is not reading its stdin"], fill: 100_000, pingTimeoutSeconds: 120),
    ])
    func unresponsivePluginIsKilledAndRestarted(_ c: Case) async throws {
        let config = TestConfig(pingIntervalSeconds: 1, pingTimeoutSeconds: c.pingTimeoutSeconds)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake(c.fake)
            let daemon = try await home.startDaemon(environment: c.environment)
            let first = try await daemon.waitForRunning(c.fake)
            let firstPID = try #require(first.pid)

            if c.fill > 0 {
                let params = "{\"pad\":\"" + String(repeating: "x", count: c.fill) + "\"}"
                for _ in 0..<15 {
                    let r = try await home.run("plugin", "call", c.fake, "fill", params, "--deliver")
                    #expect(r.status == 0, "\(r)")
                }
            }
            // A request to the hung plugin times out by itself instead of hanging the caller.
            let call = try await home.run("plugin", "call", c.fake, "echo", "{}", "--timeout-ms", "500")
            #expect(call.status == 1, "\(call)")
            #expect(try call.json()["error"]?["code"]?.stringValue == "timeout", "\(call)")

            var slowest: Duration = .zero
            let restarted = try await waitFor("\(c.fake) is restarted", timeout: .seconds(30)) { () async throws -> PluginInfo? in
                let status = try await home.run("status")
                #expect(status.status == 0, "\(status)")
                slowest = max(slowest, status.elapsed)
                guard let info = try await daemon.plugins()[c.fake] else { return nil }
                return info.restarts >= 1 && info.state == "running" && info.pid != firstPID ? info : nil
            }
            #expect(slowest < .seconds(3), "status took \(slowest) while a plugin hung")
            #expect(!ProcessTable.isRunning(firstPID), "the hung instance was not killed")
            #expect(restarted.pid.map(ProcessTable.isRunning) == true)
            let log = home.daemonLog
            #expect(c.reasons.contains { log.contains("plugin \(c.fake) \($0)") }, "\(log)")
            #expect(log.contains("plugin \(c.fake) (pid \(firstPID)) hung:"), "\(log)")
            #expect(log.contains("killed by signal 9 (SIGKILL)"))
        }
    }

    /// The daemon is blocked writing to a plugin whose stdin pipe is full when the plugin dies:
    /// the write fails with EPIPE, and that must not kill the daemon with SIGPIPE.
    /// A plugin that reads a backlog of over a megabyte slowly (an outbox replayed after an
    /// outage, each delivery posted at a chat service's pace): its pongs come behind the backlog,
    /// and it is reading, so it is not killed; it was, for "missed pongs", and again after its
    /// restart replayed the same backlog.
    @Test func aSlowReaderWithABacklogIsNotKilled() async throws {
        // The backlog (24 × 400 ms) takes more than twice the ping timeout to read; the timeout
        // itself leaves room for a loaded machine to read what is already in the pipe.
        let config = TestConfig(pingIntervalSeconds: 1, pingTimeoutSeconds: 4)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake("fake-slowread")
            let daemon = try await home.startDaemon(environment: ["FAKE_READ_DELAY_MS": "400"])
            let first = try #require(try await daemon.waitForRunning("fake-slowread").pid)
            let params = "{\"pad\":\"" + String(repeating: "x", count: 100_000) + "\"}"
            for _ in 0..<24 {
                let r = try await home.run("plugin", "call", "fake-slowread", "fill", params, "--deliver")
                #expect(r.status == 0, "\(r)")
            }
            let status = try await home.run("plugin", "call", "fake-slowread", "status", "{}", "--timeout-ms", "60000")
            #expect(status.status == 0, "\(status)")
            #expect(try status.json()["delivered"]?.intValue == 24, "\(status)")
            let info = try #require(try await daemon.plugins()["fake-slowread"])
            #expect(info.restarts == 0 && info.pid == first, "\(info); \(home.daemonLog)")
        }
    }

    /// A plugin that acknowledges nothing fills its outbox; what comes after is dropped, and
    /// `status` says so (it was a log line alone) until the daemon restarts.
    @Test func deliveriesDroppedForAFullOutboxAreAStatusProblem() async throws {
        var config = TestConfig(pingIntervalSeconds: 1, pingTimeoutSeconds: 120)
        config.outboxLimit = 2
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake("fake-noread")
            let daemon = try await home.startDaemon()
            _ = try await daemon.waitForRunning("fake-noread")
            for n in 1...3 {
                _ = try await home.run("plugin", "call", "fake-noread", "fill", "{\"n\":\(n)}", "--deliver")
            }
            let problems = try await home.run("status", "--json").json()["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(
                problems.contains { $0.hasPrefix("plugin fake-noread outbox: 1 deliveries dropped since ") && $0.contains("plugins.outboxLimit 2") },
                "\(problems)")
        }
    }

    @Test func pluginDyingWithAFullPipeLeavesTheDaemonRunning() async throws {
        let config = TestConfig(pingTimeoutSeconds: 120)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake("fake-noread")
            let daemon = try await home.startDaemon()
            let first = try #require(try await daemon.waitForRunning("fake-noread").pid)
            let params = "{\"pad\":\"" + String(repeating: "x", count: 100_000) + "\"}"
            for _ in 0..<4 {
                let r = try await home.run("plugin", "call", "fake-noread", "fill", params, "--deliver")
                #expect(r.status == 0, "\(r)")
            }
            kill(first, SIGKILL)
            try await daemon.waitForPlugin("fake-noread", "is restarted") { $0.pid != nil && $0.pid != first }
            #expect(daemon.process.poll() == nil, "pi-relayd died")
            let status = try await home.run("status")
            #expect(status.status == 0, "\(status)")
        }
    }
}
