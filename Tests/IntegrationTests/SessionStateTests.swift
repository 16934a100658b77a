import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What `sessions` says a session is doing, from its start to its exit.
@Suite struct SessionStateTests {
    @Test func startingIdleBusyWaitingIdleThenExitedWithItsReason() async throws {
        try await SessionHome.with { s in
            // A pi that takes two seconds to start, as a real one loading its extensions may.
            let slowPi = try s.script("slow-pi", "sleep 2\nexec \(SessionConfig.fakePi) \"$@\"")
            try s.configure(SessionConfig(command: slowPi))
            try await s.start()

            async let created = s.json("new", "--cwd", s.project, "--name", "st")
            let starting = try await waitFor("the new session is listed as starting", every: .milliseconds(50)) {
                try await s.sessions().first { $0["name"] == "st" && $0["state"] == "starting" }
            }
            let id = try #require(starting["id"]?.stringValue)
            #expect(try await created["state"] == "idle")
            let idle = try await s.waitForState(id, "idle")
            let quiet = try #require(SessionHome.date(idle["lastActivity"]))

            _ = try await s.json("send", "st", "!scenario slow 100 50")
            let busy = try await s.waitForState(id, "busy")
            #expect(try #require(SessionHome.date(busy["lastActivity"])) > quiet, "pi's events are activity: \(busy)")
            try await s.waitForState(id, "idle", timeout: .seconds(60))

            _ = try await s.json("send", "st", "!scenario ui confirm 0")
            let waiting = try await s.waitForState(id, "waiting-for-answer")
            #expect(waiting["questions"] == 1)
            #expect(try await s.plain("sessions").contains("\twaiting-for-answer\t"))
            #expect(try await s.plain("sessions").contains("\t1 question(s) waiting"))
            #expect(try await s.plain("answer", "st", "1", "yes") == "answered\n")
            try await s.waitForState(id, "idle")
            #expect(try await s.last(id) == "confirm answer: true")
            #expect(try await s.summary(id)?["questions"] == 0)

            // pi killed behind the daemon's back: exited, with the reason.
            let pid = try #require(try await s.summary(id)?["pid"]?.intValue.map(Int32.init))
            kill(pid, SIGKILL)
            let exited = try await s.waitForState(id, "exited")
            #expect(exited["exitReason"] == "pi killed by signal 9 (SIGKILL)", "\(exited)")
            #expect(exited["pid"] == nil)
            #expect(try await s.plain("sessions").contains("\texited\t\(s.project)"))
            #expect(try await s.plain("sessions").contains("(pi killed by signal 9 (SIGKILL))"))
        }
    }
}
