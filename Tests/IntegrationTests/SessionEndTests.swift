import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `end`: close pi's stdin, then TERM, then KILL its process group; nothing of it is left.
@Suite struct SessionEndTests {
    @Test func endStopsABusyPiThatIgnoresStdinEOF() async throws {
        try await SessionHome.with { s in
            let daemon = try await s.start()
            let id = try await s.new(name: "e")
            // pi goes on streaming after its stdin closes: only a signal stops it.
            _ = try await s.json("send", "e", "!scenario slow 600 50")
            try await s.waitForState(id, "busy")
            let pid = try #require(try await s.summary(id)?["pid"]?.intValue.map(Int32.init))
            let ended = try await s.run("end", "e", timeout: .seconds(30))
            #expect(ended.status == 0 && ended.stdout == "ended\n", "\(ended)")
            #expect(!ProcessTable.isRunning(pid))
            #expect(s.children(besides: [daemon]).isEmpty, "no child left")
            #expect(try await s.sessions().isEmpty)
        }
    }

    @Test func endKillsWhatIgnoresSIGTERMInPisProcessGroup() async throws {
        try await SessionHome.with { s in
            // A pi whose helper (think: a dev server a tool started) ignores SIGTERM.
            let stubborn = try s.script(
                "stubborn-pi",
                """
                (trap '' TERM; exec sleep 300) &
                exec \(SessionConfig.fakePi) "$@"
                """)
            try s.configure(SessionConfig(command: stubborn))
            let daemon = try await s.start()
            let id = try await s.new(name: "x")
            _ = try await s.json("send", "x", "!scenario slow 600 50")
            try await s.waitForState(id, "busy")
            let pid = try #require(try await s.summary(id)?["pid"]?.intValue.map(Int32.init))
            let helpers = s.children(besides: [daemon]).filter { $0 != pid }
            #expect(!helpers.isEmpty, "the helper runs beside pi")

            let ended = try await s.run("end", "x", timeout: .seconds(30))
            #expect(ended.status == 0, "\(ended)")
            try await waitUntil("pi and its helper are gone", timeout: .seconds(10)) {
                s.children(besides: [daemon]).isEmpty
            }
        }
    }

    @Test func stoppingTheDaemonEndsEveryPi() async throws {
        try await SessionHome.with { s in
            let daemon = try await s.start()
            let busy = try await s.new(name: "busy")
            _ = try await s.new(name: "idle")
            _ = try await s.json("send", "busy", "!scenario slow 600 50")
            try await s.waitForState(busy, "busy")
            #expect(s.children(besides: [daemon]).count == 2)
            #expect(try await s.run("stop", timeout: .seconds(40)).status == 0)
            #expect(await daemon.waitForExit() == .exited(0))
            #expect(s.children(besides: []).isEmpty, "no pi outlives the daemon")
            #expect(s.home.daemonLog.contains("pi-relayd stopped"))
        }
    }
}
