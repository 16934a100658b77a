import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Starting without a config, and what commands say when there is no daemon.
@Suite struct StartupTests {
    @Test func statusWithoutConfigNotesTheDefaults() async throws {
        try await TestHome.with { home in
            let daemon = try await home.startDaemon()

            let status = try await home.run("status")
            #expect(status.status == 0, "\(status)")
            #expect(status.stdout.contains(", pid \(daemon.pid)"), "\(status)")
            #expect(status.stdout.contains("plugins: none"), "\(status)")
            #expect(status.stdout.contains("note: no config.yaml: using defaults"), "\(status)")

            let json = try await home.run("status", "--json")
            #expect(json.status == 0, "\(json)")
            let value = try json.json()
            #expect(value["pid"]?.intValue == Int(daemon.pid))
            // Unnamed, the machine is the host name's first label.
            let machine = try #require(value["machine"]?.stringValue, "\(value)")
            #expect(!machine.isEmpty && !machine.contains(".") && status.stdout.contains("running on \(machine), pid"), "\(status)")
            #expect(value["home"]?.stringValue == home.path)
            #expect(value["plugins"]?.arrayValue?.isEmpty == true)
            let notes = value["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(notes.contains { $0.contains("no config.yaml: using defaults") }, "\(notes)")
            #expect(home.daemonLog.contains("no config.yaml: using defaults"))
        }
    }

    /// `pi-relayd start` detaches a daemon (the everyday way to run it) and `stop` ends it.
    @Test func startDetachesADaemonAndStopEndsIt() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installEcho()
            let start = try await home.run("start")
            #expect(start.status == 0, "\(start)")
            let started = try #require(start.stdout.firstMatch(of: #/pi-relayd started \(pid (\d+)\)/#), "\(start)")
            let pid = try #require(Int32(started.1))
            let status = try await home.run("status", "--json")
            #expect(try status.json()["pid"]?.intValue == Int(pid), "\(status)")
            // Detached: a session of its own, so closing the terminal does not end it.
            #expect(ProcessTable.session(of: pid) == pid)
            let again = try await home.run("start")
            #expect(again.status == 0)
            #expect(again.stdout.contains("pi-relayd is already running"), "\(again)")

            let echo = try await waitFor("echo is running") { () async throws -> Int32? in
                let list = try await home.run("plugins", "--json").json().arrayValue ?? []
                return list.first { $0["name"] == "echo" && $0["state"] == "running" }?["pid"]?.intValue.map(Int32.init)
            }
            let stop = try await home.run("stop")
            #expect(stop.status == 0, "\(stop)")
            try await waitUntil("the daemon is gone", timeout: .seconds(10)) { !ProcessTable.isRunning(pid) }
            #expect(!ProcessTable.isRunning(echo))
        }
    }

    @Test func aSecondDaemonForTheSameHomeRefusesToStart() async throws {
        try await TestHome.with { home in
            let first = try await home.startDaemon()
            let second = try SpawnedProcess(
                BuildProducts.relayd, ["start", "--foreground"], environment: home.environment(),
                stdoutPath: home.scratch + "/second.out", stderrPath: home.scratch + "/second.err")
            let exit = await second.wait(timeout: .seconds(30))
            if exit == nil { second.signalGroup(SIGKILL) }
            #expect(exit == .exited(1), "\(second.stderr)")
            #expect(second.stderr.contains("already running"), "\(second.stderr)")
            let status = try await home.run("status", "--json")
            #expect(try status.json()["pid"]?.intValue == Int(first.pid), "the first one carries on: \(status)")
        }
    }

    /// Defect e: sessions.json from a newer pi-relayd stops the start with a clear message, and
    /// the file is left exactly as it was (a daemon that went on would save over it).
    @Test func aStateFileFromANewerVersionStopsTheStartAndIsLeftAlone() async throws {
        try await TestHome.with(config: TestConfig(disabled: ["discord", "formatter", "attachments"]).yaml) { home in
            let contents = "{\"version\":9,\"sessions\":[]}"
            try FileManager.default.createDirectory(atPath: home.path + "/state", withIntermediateDirectories: true)
            try home.writeFile("state/sessions.json", contents, mode: 0o600)
            let start = try await home.run("start")
            #expect(start.status == 1, "\(start)")
            #expect(
                start.stderr.contains("sessions.json was written by a newer pi-relayd (file version 9; this one reads up to 1)"),
                "\(start)")
            #expect(home.read("state/sessions.json") == contents)
        }
    }

    /// Each command is one connection; connections closed at a bad moment once handed the next
    /// client's request to a stale reader, and that command hung.
    @Test func controlSocketAnswersManyCommandsInARow() async throws {
        try await TestHome.with { home in
            let daemon = try await home.startDaemon()
            // Several clients at once, each starting the next command as soon as one ends.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        for n in 0..<100 {
                            let status = try await home.cli.run(["status", "--json"], timeout: .seconds(10))
                            #expect(status.status == 0, "client \(client), command \(n): \(status)")
                            #expect(try status.json()["pid"]?.intValue == Int(daemon.pid))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// A client that hangs up before its answer is ready: writing the answer fails with EPIPE,
    /// which must not kill the daemon with SIGPIPE.
    @Test func clientHangingUpBeforeItsAnswerLeavesTheDaemonRunning() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installFake("fake-good", as: "good")
            let daemon = try await home.startDaemon()
            try await daemon.waitForRunning("good")
            let impatient = try SpawnedProcess(
                BuildProducts.relayd, ["plugin", "call", "good", "slow", #"{"ms":1500}"#],
                environment: home.environment(),
                stdoutPath: home.scratch + "/impatient.out",
                stderrPath: home.scratch + "/impatient.err")
            try await waitUntil("the plugin has the slow request") { !home.fakeEvents("request", plugin: "good").isEmpty }
            impatient.signal(SIGKILL)
            _ = await impatient.wait(timeout: .seconds(10))
            try await daemon.waitForPlugin("good", "has answered the slow request") { $0.pendingRequests == 0 }
            let after = try await home.run("plugin", "call", "good", "echo", "{}")
            #expect(after.status == 0, "\(after)")
            #expect(daemon.process.poll() == nil, "pi-relayd died")
        }
    }

    @Test(arguments: [
        ["status"], ["stop"], ["plugins"], ["plugins", "reload"], ["plugins", "restart", "echo"],
        ["plugin", "call", "echo", "echo"],
    ])
    func commandsSayPlainlyThatTheDaemonIsNotRunning(_ arguments: [String]) async throws {
        try await TestHome.with(gated: false) { home in
            let plain = try await home.cli.run(arguments)
            #expect(plain.status == 3, "\(plain)")
            #expect((plain.stderr + plain.stdout).contains("pi-relayd is not running"), "\(plain)")
            #expect(!plain.stderr.contains("Error:"), "a plain message, not a Swift error dump: \(plain)")
        }
    }

    @Test(arguments: [["status", "--json"], ["plugins", "--json"]])
    func jsonCommandsReportNotRunningAsJSON(_ arguments: [String]) async throws {
        try await TestHome.with(gated: false) { home in
            let result = try await home.cli.run(arguments)
            #expect(result.status == 3, "\(result)")
            let message = try result.json()["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("pi-relayd is not running"), "\(result)")
        }
    }
}
