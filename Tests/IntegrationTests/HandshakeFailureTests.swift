import Foundation
import Testing

/// Each way a handshake can fail has its own message, in `pi-relayd plugins` and the daemon log.
@Suite struct HandshakeFailureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let fake: String
        /// Phrases the reason in `plugins` and the daemon log's line must both contain.
        let phrases: [String]
        var testDescription: String { fake }
    }

    /// Failures that count as crashes: restarted with backoff until the crash loop marks the
    /// plugin failed, so the reason stays put for the test to read.
    @Test(arguments: [
        Case(fake: "fake-badfirst", phrases: ["expected a hello as the first line, got: not json at all"]),
        Case(fake: "fake-early-exit", phrases: ["exited before its hello", "status 2", "boom: missing dependency"]),
        Case(fake: "fake-silent", phrases: ["sent no hello within 2 s"]),
    ])
    func handshakeFailureIsReportedAndRetried(_ c: Case) async throws {
        let config = TestConfig(handshakeTimeoutSeconds: 2, crashLoopCount: 3)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake(c.fake)
            let daemon = try await home.startDaemon()

            var pids: Set<Int32> = []
            let failed = try await waitFor("\(c.fake) is marked failed", timeout: .seconds(40)) {
                let info = try await daemon.plugins()[c.fake]
                if let pid = info?.pid { pids.insert(pid) }
                return info?.state == "failed" ? info : nil
            }
            #expect(failed.restarts == 2, "\(failed)")
            #expect(failed.reason.contains("crash loop: 3 crashes"), "\(failed)")
            for phrase in c.phrases {
                #expect(failed.reason.contains(phrase), "reason lacks \(phrase): \(failed)")
            }
            let table = try await home.run("plugins")
            #expect(table.stdout.contains("\(c.fake)\tfailed"), "\(table)")
            #expect(table.stdout.contains(c.phrases[0]), "\(table)")

            let lines = home.daemonLog.split(separator: "\n").filter { $0.contains("plugin \(c.fake)") }
            for phrase in c.phrases {
                #expect(lines.contains { $0.contains(phrase) }, "no log line with \(phrase)")
            }
            #expect(lines.filter { $0.contains("spawned") }.count == 3)
            // Killed or exited: no instance is left behind.
            for pid in pids { #expect(!ProcessTable.isRunning(pid), "instance \(pid) still running") }
            // None of them got as far as a welcome.
            #expect(home.fakeEvents("welcome").isEmpty)
        }
    }

    @Test func halfLineIsLoggedAsUnterminatedAndNeverParsed() async throws {
        try await TestHome.with(config: TestConfig(crashLoopCount: 2).yaml) { home in
            try home.installFake("fake-halfline")
            let daemon = try await home.startDaemon()
            let failed = try await daemon.waitForPlugin("fake-halfline", "is marked failed", timeout: .seconds(30)) {
                $0.state == "failed"
            }
            // Treated as a crash: restarted once, then the second crash is the crash loop.
            #expect(failed.restarts == 1, "\(failed)")
            #expect(failed.reason.contains("exited before its hello"), "\(failed)")
            #expect(failed.reason.contains("status 1"), "\(failed)")
            let log = home.daemonLog
            #expect(log.contains("plugin fake-halfline: stdout ended with an unterminated"), "\(log)")
            #expect(log.contains("-byte line; not parsed"))
            // Half a hello is not a hello.
            #expect(!log.contains("plugin fake-halfline: hello:"))
            #expect(!log.contains("plugin fake-halfline: expected a hello"))
        }
    }

    @Test func unsupportedProtocolGetsGoodbyeAndIsNotRestarted() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installFake("fake-wrongversion")
            let daemon = try await home.startDaemon()

            let failed = try await daemon.waitForPlugin("fake-wrongversion", "is marked failed") { $0.state == "failed" }
            #expect(failed.reason.contains("protocol 2"), "\(failed)")
            #expect(failed.restarts == 0)
            // The fake records the goodbye it got, then exits 0.
            let goodbyes = try await waitFor("the fake records its goodbye") {
                let events = home.fakeEvents("goodbye", plugin: "fake-wrongversion")
                return events.isEmpty ? nil : events
            }
            #expect(goodbyes.map { $0["reason"]?.stringValue } == ["unsupported protocol 2; this pi-relayd speaks 1"])
            #expect(home.daemonLog.contains("plugin fake-wrongversion: speaks protocol 2"), "\(home.daemonLog)")
            let pid = try #require(home.fakeEvents("goodbye").first?["pid"]?.intValue)
            try await waitUntil("the refused instance exits") { !ProcessTable.isRunning(Int32(pid)) }

            // Many backoff periods later it has still been started once.
            try await Task.sleep(for: .seconds(1))
            let spawns = home.daemonLog.split(separator: "\n").filter { $0.contains("plugin fake-wrongversion: spawned") }
            #expect(spawns.count == 1)
            #expect(try await daemon.plugins()["fake-wrongversion"]?.state == "failed")
            #expect(home.fakeEvents("welcome").isEmpty)

            // A new executable under that name gets another chance.
            try home.removePlugin("fake-wrongversion")
            try home.installFake("fake-good", as: "fake-wrongversion")
            let reload = try await home.run("plugins", "reload")
            #expect(reload.status == 0, "\(reload)")
            try await daemon.waitForRunning("fake-wrongversion")
            // The fake writes down its welcome after it has read it; "running" can come first.
            try await waitUntil("the new executable's welcome is recorded") { !home.fakeEvents("welcome", plugin: "fake-wrongversion").isEmpty }
            #expect(home.fakeEvents("welcome", plugin: "fake-wrongversion").count == 1)
        }
    }
}
