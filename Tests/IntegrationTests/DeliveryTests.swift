import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Nothing is lost: deliveries wait in the outbox through crashes, backoff and daemon restarts;
/// requests and deliveries in flight during a crash are retried, and poison is stopped.
@Suite struct DeliveryTests {
    /// Sends one acknowledged delivery through the CLI and returns its id.
    static func deliver(_ home: TestHome, to plugin: String, _ n: Int) async throws -> String {
        let result = try await home.run("plugin", "call", plugin, "test.note", "{\"n\":\(n)}", "--deliver")
        #expect(result.status == 0, "\(result)")
        return try #require(try result.json()["delivered"]?.stringValue, "\(result)")
    }

    /// The echo example's record of deliveries: one JSON line each, in the order it acted on them.
    static func received(_ home: TestHome) -> [JSONValue] {
        home.read("state/plugins/echo/received.jsonl").split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    @Test func deliveriesWhileBackingOffAreDeliveredOnceAfterTheRestart() async throws {
        // No immediate restart: the deliveries must arrive while the plugin is down. Five CLI
        // calls took over 4 s on a loaded machine, so the backoff is 10 s.
        let config = TestConfig(immediateRestarts: 0, initialBackoffMs: 10000, maxBackoffMs: 10000, jitter: 0)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake("fake-crash")
            let daemon = try await home.startDaemon(environment: ["FAKE_CRASH_AFTER_MS": "-1"])
            let first = try #require(try await daemon.waitForRunning("fake-crash").pid)
            kill(first, SIGKILL)
            try await daemon.waitForPlugin("fake-crash", "is backing off") { $0.state == "backoff" }

            var ids: [String] = []
            for n in 0..<5 { ids.append(try await Self.deliver(home, to: "fake-crash", n)) }
            let waiting = try #require(try await daemon.plugins()["fake-crash"])
            #expect(waiting.state == "backoff", "the deliveries were meant to arrive while it was down: \(waiting)")
            #expect(waiting.outbox == 5)

            let second = try await daemon.waitForPlugin("fake-crash", "is back and has acked everything", timeout: .seconds(40)) {
                $0.state == "running" && $0.outbox == 0
            }
            let delivered = home.fakeEvents("deliver", plugin: "fake-crash")
            #expect(delivered.compactMap { $0["id"]?.stringValue } == ids, "each once, in order")
            #expect(delivered.allSatisfy { $0["duplicate"] == false && $0["pid"]?.intValue == second.pid.map(Int.init) })
            #expect(delivered.compactMap { $0["params"]?["n"]?.intValue } == Array(0..<5))
        }
    }

    @Test func echoDeliveriesSurviveKill9AndAreReplayed() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installEcho()
            let daemon = try await home.startDaemon()
            let first = try #require(try await daemon.waitForRunning("echo").pid)

            var ids: [String] = []
            for n in 0..<5 { ids.append(try await Self.deliver(home, to: "echo", n)) }
            try await daemon.waitForPlugin("echo", "acked the first batch") { $0.outbox == 0 }

            // Stopped, the plugin gets the next batch on its stdin but can never ack it; then it
            // is killed with those deliveries unacknowledged.
            kill(first, SIGSTOP)
            for n in 5..<10 { ids.append(try await Self.deliver(home, to: "echo", n)) }
            #expect(try await daemon.plugins()["echo"]?.outbox == 5)
            kill(first, SIGKILL)

            try await daemon.waitForPlugin("echo", "is back and has acked the replay") {
                $0.state == "running" && $0.pid != first && $0.outbox == 0
            }
            for n in 10..<15 { ids.append(try await Self.deliver(home, to: "echo", n)) }
            try await daemon.waitForPlugin("echo", "acked the last batch") { $0.outbox == 0 }

            let received = Self.received(home)
            #expect(received.compactMap { $0["id"]?.stringValue } == ids, "each id exactly once, in order")
            #expect(received.compactMap { $0["params"]?["n"]?.intValue } == Array(0..<15))
            #expect(received.allSatisfy { $0["method"] == "test.note" })
        }
    }

    @Test func requestPendingDuringACrashIsRetriedOnTheNewInstance() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installEcho()
            let daemon = try await home.startDaemon()
            let first = try #require(try await daemon.waitForRunning("echo").pid)

            let marker = home.scratch + "/crashed-once"
            let call = try await home.run("plugin", "call", "echo", "crash-once-file", "{\"path\":\"\(marker)\"}")
            #expect(call.status == 0, "\(call)")
            #expect(try call.json() == ["path": .string(marker), "existed": true], "\(call)")
            // The first instance took the request and died (it left the marker); the second answered.
            #expect(FileManager.default.fileExists(atPath: marker))
            let info = try #require(try await daemon.plugins()["echo"])
            #expect(info.restarts == 1, "\(info)")
            #expect(info.pid != first)
            #expect(info.pendingRequests == 0)
            #expect(home.daemonLog.contains("plugin echo (pid \(first)) exited with status 3"))
        }
    }

    @Test func requestThatKillsThePluginTwiceFailsAsPoison() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installFake("fake-poison")
            let daemon = try await home.startDaemon()
            let first = try #require(try await daemon.waitForRunning("fake-poison").pid)

            let poisoned = try await home.run("plugin", "call", "fake-poison", "echo", #"{"poison":true}"#)
            #expect(poisoned.status == 1, "\(poisoned)")
            #expect(try poisoned.json()["error"]?["code"]?.stringValue == "poison", "\(poisoned)")
            // Tried on two instances, never on a third.
            #expect(home.fakeEvents("poisoned").count == 2)
            #expect(Set(home.fakeEvents("poisoned").compactMap { $0["pid"]?.intValue }).count == 2)
            #expect(home.daemonLog.contains("in flight during 2 crashes; failing it as poison"))

            // And the plugin is up again, serving other requests.
            let back = try await daemon.waitForPlugin("fake-poison", "is up again") { $0.state == "running" && $0.pid != first }
            #expect(back.restarts == 2, "\(back)")
            let fine = try await home.run("plugin", "call", "fake-poison", "echo", #"{"ok":1}"#)
            #expect(fine.status == 0, "\(fine)")
            #expect(try fine.json() == ["echo": ["ok": 1]])
            #expect(home.fakeEvents("poisoned").count == 2)
        }
    }

    @Test func aDeliveryThatKillsThePluginEveryTimeIsSetAsideAndTheRestGoOn() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installFake("fake-poison")
            let daemon = try await home.startDaemon()
            let first = try #require(try await daemon.waitForRunning("fake-poison").pid)
            let before = try await Self.deliver(home, to: "fake-poison", 0)
            try await daemon.waitForPlugin("fake-poison", "acked the first") { $0.outbox == 0 }

            // Stopped, the plugin gets the poison and two good deliveries behind it on its stdin:
            // all three are in flight when it dies, so no crash says which one killed it.
            kill(first, SIGSTOP)
            let call = try await home.run("plugin", "call", "fake-poison", "test.note", #"{"poison":true}"#, "--deliver")
            let poison = try #require(try call.json()["delivered"]?.stringValue, "\(call)")
            let after = [try await Self.deliver(home, to: "fake-poison", 1), try await Self.deliver(home, to: "fake-poison", 2)]
            kill(first, SIGCONT)

            let back = try await daemon.waitForPlugin("fake-poison", "is up with its outbox empty") {
                $0.state == "running" && $0.outbox == 0 && $0.restarts >= 3
            }
            // Two crashes with all three in flight, then one at a time: the poison alone, its last.
            #expect(back.restarts == 3, "\(back)")
            let poisoned = home.fakeEvents("poisoned")
            #expect(poisoned.count == 3 && poisoned.allSatisfy { $0["id"]?.stringValue == poison }, "\(poisoned)")
            let delivered = home.fakeEvents("deliver", plugin: "fake-poison")
            #expect(delivered.compactMap { $0["id"]?.stringValue } == [before] + after, "each good one once, in order")
            #expect(delivered.allSatisfy { $0["duplicate"] == false })
            #expect(home.daemonLog.contains("delivery \(poison) (test.note) was in flight during 2 crashes, alone the last time"))

            // Kept for the operator, and named by status until the daemon restarts.
            let kept = home.read("state/outbox/fake-poison.set-aside.jsonl").split(separator: "\n")
            #expect(kept.count == 1)
            let record = try JSONValue.parse(String(kept.first ?? ""))
            #expect(record["id"]?.stringValue == poison && record["params"]?["poison"] == true, "\(record)")
            let status = try await home.run("status")
            #expect(status.stdout.contains("plugin fake-poison outbox: 1 deliveries set aside since"), "\(status)")

            // And later deliveries go as before.
            let later = try await Self.deliver(home, to: "fake-poison", 3)
            try await daemon.waitForPlugin("fake-poison", "acked the later one") { $0.outbox == 0 }
            #expect(home.fakeEvents("deliver", plugin: "fake-poison").last?["id"]?.stringValue == later)
        }
    }

    @Test func outboxSurvivesADaemonRestart() async throws {
        try await TestHome.with(config: TestConfig(crashLoopCount: 1).yaml) { home in
            try home.installEcho()
            let first = try await home.startDaemon()
            let pid = try #require(try await first.waitForRunning("echo").pid)
            // One crash is a crash loop with this config: the plugin stays down.
            kill(pid, SIGKILL)
            try await first.waitForPlugin("echo", "is marked failed") { $0.state == "failed" }

            var ids: [String] = []
            for n in 0..<3 { ids.append(try await Self.deliver(home, to: "echo", n)) }
            #expect(try await first.plugins()["echo"]?.outbox == 3)

            let stop = try await home.run("stop")
            #expect(stop.status == 0, "\(stop)")
            #expect(stop.stdout.contains("pi-relayd stopped"))
            #expect(await first.waitForExit() == .exited(0))
            #expect(Self.received(home).isEmpty)

            let second = try await home.startDaemon()
            try await second.waitForPlugin("echo", "is running with an empty outbox") { $0.state == "running" && $0.outbox == 0 }
            #expect(Self.received(home).compactMap { $0["id"]?.stringValue } == ids)
        }
    }
}
