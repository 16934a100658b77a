import Foundation
import PiRelaySDK
import Testing

/// Issue 16, point 10: `restart`, `abort` (and `stop-run`) for a run against `stop` for the
/// daemon, and `new DIR [NAME]` as in a chat.
@Suite struct CLIVerbTests {
    @Test func newTakesTheDirectoryAsItsArgument() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let byArgument = try await s.json("new", s.project, "api")
            #expect(byArgument["name"] == "api" && byArgument["cwd"]?.stringValue == s.project, "\(byArgument)")
            let other = s.home.scratch + "/other"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            let named = try await s.json("new", other)
            #expect(named["name"] == "other" && named["cwd"]?.stringValue == other, "the directory's name: \(named)")
            let byOption = try await s.json("new", "--cwd", s.project, "--name", "web")
            #expect(byOption["name"] == "web", "\(byOption)")

            for bad in [["new"], ["new", s.project, "--cwd", other], ["new", s.project, "x", "--name", "y"]] {
                let refused = try await s.run(bad)
                #expect(refused.status == 64 && !refused.stderr.isEmpty, "\(refused)")
            }
            #expect(try await s.sessions().count == 3)
        }
    }

    @Test func stopRunIsAbortAndStopStopsTheDaemon() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "api")
            _ = try await s.json("send", "api", "!scenario slow 100 100")
            try await s.waitForState(id, "busy")
            #expect(try await s.plain("stop-run", "api") == "aborted\n")
            try await s.waitForState(id, "idle")
            #expect(try await s.history(id, "--type", "run_finished").last?["stopReason"] == "aborted")
            let help = try await s.run("abort", "--help")
            #expect(help.stdout.contains("the daemon stops with `stop`"), "\(help)")
        }
    }

    @Test func restartStopsAndStartsTheDaemonAndSessionsComeBack() async throws {
        try await SessionHome.with { s in
            let notRunning = try await s.json("restart")
            #expect(notRunning["stopped"] == false && notRunning["started"] == true, "a daemon that was down is started: \(notRunning)")
            let first = try #require(notRunning["pid"]?.intValue)
            let id = try await s.new(name: "api")

            let restarted = try await s.run("restart")
            #expect(restarted.status == 0 && restarted.stdout.hasPrefix("pi-relayd restarted (pid "), "\(restarted)")
            let status = try await s.json("status")
            let second = try #require(status["pid"]?.intValue)
            #expect(second != first, "a new daemon: \(status)")
            #expect(try await s.summary(id)?["name"] == "api", "the session is back")
            #expect(try await s.json("stop")["stopped"] == true)
        }
    }

    /// A config that would not start is refused before the running daemon is stopped.
    @Test func restartWithABrokenConfigLeavesTheRunningDaemonUp() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let before = try #require(try await s.json("status")["pid"]?.intValue)
            try s.home.writeConfig("plugins: {disabled: 3}\n")
            let refused = try await s.run("restart")
            #expect(refused.status == 1 && refused.stderr.contains("not restarted") && refused.stderr.contains("config.yaml:1:"), "\(refused)")
            #expect(try await s.json("status")["pid"]?.intValue == before, "the daemon that ran still runs")
        }
    }
}
