import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM stops every plugin in order and leaves nothing behind.
@Suite struct ShutdownTests {
    @Test func sigtermStopsPluginsInOrderAndLeavesNoChild() async throws {
        // Long ping timeout: fake-hang must still be there when the shutdown comes.
        let config = TestConfig(pingTimeoutSeconds: 120, shutdownGraceMs: 1000)
        try await TestHome.with(config: config.yaml) { home in
            try home.installFake("fake-good", as: "good")
            try home.installEcho()
            try home.installFake("fake-hang")
            let daemon = try await home.startDaemon(environment: ["FAKE_IGNORE_SIGTERM": "1"])
            var pids: [String: Int32] = [:]
            for name in ["good", "echo", "fake-hang"] {
                let pid = try #require(try await daemon.waitForRunning(name).pid)
                pids[name] = pid
            }

            // Every child leads a process group (and session) of its own, apart from the daemon's.
            let daemonGroup = ProcessTable.processGroup(of: daemon.pid)
            #expect(daemonGroup == daemon.pid)
            for (name, pid) in pids {
                #expect(ProcessTable.processGroup(of: pid) == pid, "\(name) shares a process group")
                #expect(ProcessTable.session(of: pid) == pid, "\(name) shares a session")
            }

            daemon.signal(SIGTERM)
            let exit = await daemon.waitForExit(timeout: .seconds(30))
            #expect(exit == .exited(0))
            for (name, pid) in pids {
                try await waitUntil("\(name) (pid \(pid)) is gone", timeout: .seconds(5)) { !ProcessTable.isRunning(pid) }
            }
            #expect(ProcessTable.pids(withEnvironment: "PI_RELAYD_HOME", value: home.path).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: home.socketPath), "the control socket is removed")

            // The well-behaved ones got `shutdown` and exited 0; fake-hang needed SIGKILL.
            #expect(home.fakeEvents("shutdown", plugin: "good").map { $0["graceMs"]?.intValue } == [1000])
            let log = home.daemonLog
            let stopped = try #require(log.range(of: "pi-relayd stopped"), "\(log)")
            let before = String(log[..<stopped.lowerBound])
            #expect(before.contains("signal received: shutting down"))
            #expect(before.contains("plugin good (pid \(pids["good"]!)) exited with status 0"), "\(log)")
            #expect(before.contains("plugin echo (pid \(pids["echo"]!)) exited with status 0"), "\(log)")
            #expect(before.contains("plugin fake-hang: still running; sending SIGTERM to its process group"))
            #expect(before.contains("plugin fake-hang: still running; sending SIGKILL to its process group"))
            #expect(before.contains("plugin fake-hang (pid \(pids["fake-hang"]!)) killed by signal 9 (SIGKILL)"))
            #expect(home.pluginLog("echo").contains("shutdown: exiting"))
        }
    }

    @Test func stopCommandStopsTheDaemon() async throws {
        try await TestHome.with(config: TestConfig().yaml) { home in
            try home.installEcho()
            let daemon = try await home.startDaemon()
            let pid = try #require(try await daemon.waitForRunning("echo").pid)
            let stop = try await home.run("stop")
            #expect(stop.status == 0, "\(stop)")
            #expect(stop.stdout.contains("pi-relayd stopped"), "\(stop)")
            #expect(await daemon.waitForExit() == .exited(0))
            try await waitUntil("the plugin is gone", timeout: .seconds(5)) { !ProcessTable.isRunning(pid) }
            let again = try await home.run("status")
            #expect(again.status == 3, "\(again)")
        }
    }
}
