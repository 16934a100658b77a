import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `stream`: a session's live events until the client goes away; the daemon does not mind how
/// it goes.
@Suite struct SessionStreamTests {
    @Test func streamPrintsLiveEventsUntilTheClientLeaves() async throws {
        try await SessionHome.with { s in
            let daemon = try await s.start()
            let id = try await s.new(name: "live")
            let first = try SessionStreamWatcher(s, session: "live", name: "first")
            let second = try SessionStreamWatcher(s, session: String(id.prefix(4)), name: "second")
            #expect(try await first.waitFor("watching")["session"] == "live")
            try await second.waitFor("watching")

            try await s.prompt(id, "!scenario text 40")
            for watcher in [first, second] {
                let done = try await watcher.waitFor("run_finished")
                #expect(done["stopReason"] == "stop" && done["session"] == "live", "\(done)")
                let deltas = watcher.events(ofType: "text_delta").compactMap { $0["delta"]?.stringValue }.joined()
                #expect(try await deltas == s.last(id), "the whole answer went by live")
                #expect(watcher.events.allSatisfy { SessionHome.date($0["time"]) != nil || $0["type"] == "watching" })
            }

            // Ctrl-C on one of them: the other keeps streaming, the daemon keeps working.
            #expect(await first.interrupt() != nil)
            let seen = first.events.count
            try await s.prompt(id, "after the first left")
            try await second.waitFor("text_delta") { $0["delta"]?.stringValue?.contains("left") == true }
            #expect(first.events.count == seen)
            #expect(daemon.process.poll() == nil, "the daemon is still running")

            // A client killed outright (no goodbye at all) is noticed too.
            second.process.signalGroup(SIGKILL)
            _ = await second.process.wait(timeout: .seconds(10))
            for n in 0..<3 { try await s.prompt(id, "more \(n)") }
            #expect(try await s.last(id) == "Echo: more 2")
            #expect(try await s.json("sessions").arrayValue?.count == 1)

            // Streaming an unknown session fails at once.
            let unknown = try await s.run("stream", "nope", timeout: .seconds(20))
            #expect(unknown.status == 1 && unknown.stderr.contains("no session matches \"nope\""), "\(unknown)")
        }
    }

    @Test func endingTheSessionEndsItsStreams() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "brief")
            let watcher = try SessionStreamWatcher(s, session: id, name: "brief")
            try await watcher.waitFor("watching")
            _ = try await s.json("end", "brief")
            let exit = await watcher.process.wait(timeout: .seconds(20))
            #expect(exit == .exited(0), "stream returns when its session ends: \(String(describing: exit))")
        }
    }
}
