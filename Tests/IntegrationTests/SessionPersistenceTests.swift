import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Sessions outlive the daemon (stop/start, kill -9) and their pi child (a crash): each comes
/// back with its id and name, resumed from pi's own session file.
@Suite struct SessionPersistenceTests {
    /// The running pi of a session and the session file it was started on.
    static func child(_ s: SessionHome, _ id: String) async throws -> (pid: Int32, sessionFile: String) {
        let summary = try #require(try await s.summary(id))
        let pid = try #require(summary["pid"]?.intValue.map(Int32.init), "\(summary)")
        return (pid, try #require(summary["sessionFile"]?.stringValue, "\(summary)"))
    }

    /// pi was started with `--session <file>`: it resumed that conversation.
    static func expectResumed(_ pid: Int32, _ file: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let argv = SessionHome.commandLine(pid)
        let resumed = zip(argv, argv.dropFirst()).contains { $0 == "--session" && $1 == file }
        #expect(resumed, "pi \(pid) runs \(argv), not on \(file)", sourceLocation: sourceLocation)
        #expect(file.hasPrefix("/"), sourceLocation: sourceLocation)
    }

    @Test func stopAndStartBringsEverySessionBackOnItsSessionFile() async throws {
        try await SessionHome.with { s in
            let first = try await s.start()
            let one = try await s.new(name: "one")
            let other = s.project + "/sub"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            let two = try await s.new(name: "two", cwd: other)
            try await s.prompt(one, "first of one")
            try await s.prompt(two, "first of two")
            _ = try await s.json("rename", "two", "deux")
            _ = try await s.json("model", "one", "anthropic/claude-sonnet-4-5")
            let before = [one: try await Self.child(s, one), two: try await Self.child(s, two)]

            #expect(try await s.run("stop").status == 0)
            #expect(await first.waitForExit() == .exited(0))
            for (_, c) in before { #expect(!ProcessTable.isRunning(c.pid), "pi \(c.pid) stopped with the daemon") }

            try await s.start()
            for (id, name) in [(one, "one"), (two, "deux")] {
                let back = try await s.waitForState(id, "idle")
                #expect(back["name"]?.stringValue == name)
                let now = try await Self.child(s, id)
                let old = try #require(before[id])
                #expect(now.pid != old.pid)
                #expect(now.sessionFile == old.sessionFile)
                Self.expectResumed(now.pid, old.sessionFile)
                #expect(try await s.json("stats", id)["totalMessages"] == 2, "the conversation came back")
            }
            #expect(try await s.summary(two)?["cwd"]?.stringValue == other)
            #expect(try await s.summary(one)?["model"] == "anthropic/claude-sonnet-4-5", "pi resumed the model of the file")
            #expect(try await s.last(one) == "Echo: first of one")

            // The conversation goes on where it was.
            try await s.prompt(one, "second of one")
            #expect(try await s.json("stats", "one")["totalMessages"] == 4)
            #expect(try await s.json("state", "deux")["messageCount"] == 2)
        }
    }

    @Test func aNewConversationIsTheOneThatComesBack() async throws {
        try await SessionHome.with { s in
            let first = try await s.start()
            let id = try await s.new(name: "n")
            try await s.prompt(id, "old conversation")
            let old = try await Self.child(s, id).sessionFile
            #expect(try await s.json("new-conversation", "n") == ["cancelled": false])
            try await s.prompt(id, "new conversation")
            let fresh = try #require(try await s.json("state", "n")["sessionFile"]?.stringValue)
            #expect(fresh != old, "pi writes the new conversation to a new file")
            #expect(try await s.summary(id)?["sessionFile"]?.stringValue == fresh, "sessions shows the file pi uses")

            #expect(try await s.run("stop").status == 0)
            #expect(await first.waitForExit() == .exited(0))
            try await s.start()
            try await s.waitForState(id, "idle")
            Self.expectResumed(try await Self.child(s, id).pid, fresh)
            #expect(try await s.last(id) == "Echo: new conversation")
            #expect(try await s.json("stats", "n")["totalMessages"] == 2)
        }
    }

    @Test func killNineOfTheDaemonStopsTheOrphanedPiAndResumesIt() async throws {
        try await SessionHome.with { s in
            // Started outside TestHome's list: this daemon dies by SIGKILL on purpose.
            let doomed = try Daemon(home: s.home, environment: s.home.environment(), number: 90)
            try await doomed.waitUntilListening()
            let id = try await s.new(name: "k")
            try await s.prompt(id, "remember me")
            // A dialog with a timeout keeps pi alive after its stdin closes, as a busy pi is.
            _ = try await s.json("send", "k", "!scenario ui select 120000")
            try await s.waitForState(id, "waiting-for-answer")
            let orphan = try await Self.child(s, id)

            doomed.signal(SIGKILL)
            #expect(await doomed.waitForExit() == .signaled(SIGKILL))
            #expect(ProcessTable.isRunning(orphan.pid), "pi outlived its daemon")

            try await s.start()
            try await waitUntil("the orphaned pi is stopped") { !ProcessTable.isRunning(orphan.pid) }
            #expect(s.home.daemonLog.contains("pi pid \(orphan.pid) from before the restart is still running in \(s.project); stopping it"))
            let back = try await s.waitForState(id, "idle")
            #expect(back["name"] == "k")
            let now = try await Self.child(s, id)
            #expect(now.pid != orphan.pid)
            Self.expectResumed(now.pid, orphan.sessionFile)
            let messages = try #require(try await s.json("stats", "k")["totalMessages"]?.intValue)
            #expect(messages >= 2, "the file's messages came back")
            try await s.prompt(id, "still there?")
            #expect(try await s.json("stats", "k")["totalMessages"]?.intValue == messages + 2)
            #expect(try await s.last(id) == "Echo: still there?")
        }
    }

    /// A restart with many sessions starts their pis a few at a time (the machine's cores, 2 to
    /// 8), oldest first, and a prompt to the session the queue reaches last starts its pi at once.
    /// Each pi here takes a second to start, as a real one loading Node and its extensions does.
    @Test func aRestartStartsPisAFewAtATimeAndAPromptGoesFirst() async throws {
        let width = max(2, min(8, ProcessInfo.processInfo.activeProcessorCount))
        let count = 3 * width + 2
        try await SessionHome.with { s in
            let first = try await s.start()
            var ids: [String] = []
            for i in 0..<count { ids.append(try await s.new(name: "r\(i)")) }
            #expect(try await s.run("stop").status == 0)
            #expect(await first.waitForExit() == .exited(0))

            let slow = try s.script("slow-pi", "sleep 1\nexec \(SessionConfig.fakePi) \"$@\"")
            try s.configure(SessionConfig(command: slow))
            let daemon = try await s.start()
            let last = try #require(ids.last)
            async let answered = s.prompt(last, "first in line")
            var most = 0
            var upWhenAnswered: Int?
            let deadline = ContinuousClock.now + .seconds(60)
            while upWhenAnswered == nil, ContinuousClock.now < deadline {
                // The pis alive first, then how many sessions are up: a pi that comes up between
                // the two readings can only raise the allowance.
                // A pi's script forks for its `sleep`, and until that child execs it has the pi's
                // command line too: a process whose parent is a pi is not another pi.
                let pis = Set(s.children(besides: [daemon]).filter { SessionHome.commandLine($0).contains("rpc") })
                let alive = pis.filter { pid in ProcessTable.parent(of: pid).map { !pis.contains($0) } ?? true }.count
                let states = try await s.sessions().compactMap { $0["state"]?.stringValue }
                let up = states.filter { $0 != "starting" && $0 != "resuming" }.count
                #expect(alive <= width + up + 1, "\(alive) pis alive with \(up) sessions up, at most \(width) start at once")
                most = max(most, alive - up)
                if try await s.summary(last)?["state"]?.stringValue == "idle", try await s.last(last) == "Echo: first in line" {
                    upWhenAnswered = up
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            _ = try await answered
            #expect(try #require(upWhenAnswered) < count, "the prompted session did not wait for the whole queue")
            #expect(most >= 1)
            for id in ids { try await s.waitForState(id, "idle", timeout: .seconds(60)) }
        }
    }

    @Test func aCorruptSessionsFileIsMovedAsideWithAWarning() async throws {
        try await SessionHome.with { s in
            try FileManager.default.createDirectory(atPath: s.home.path + "/state", withIntermediateDirectories: true)
            try Data("{\"version\":1,\"sessions\":[{\"id\":".utf8).write(to: URL(fileURLWithPath: s.sessionsFile))
            try await s.start()
            #expect(try await s.sessions().isEmpty)
            let state = try FileManager.default.contentsOfDirectory(atPath: s.home.path + "/state")
            let aside = try #require(state.first { $0.hasPrefix("sessions.json.corrupt-") }, "\(state)")
            #expect(
                try String(contentsOfFile: s.home.path + "/state/" + aside, encoding: .utf8).hasPrefix("{\"version\":1"),
                "the bad file is kept for a human to look at")
            #expect(s.home.daemonLog.contains("\(s.sessionsFile) is corrupt ("), "\(s.home.daemonLog)")
            #expect(s.home.daemonLog.contains("moved it to \(s.home.path)/state/\(aside)"))

            // The daemon works on and writes a good file again.
            let id = try await s.new(name: "fresh")
            let saved = try JSONValue.parse(String(contentsOfFile: s.sessionsFile, encoding: .utf8))
            #expect(saved["sessions"]?.arrayValue?.compactMap { $0["id"] } == [.string(id)], "\(saved)")
        }
    }

    @Test func aSavedSessionWhosePiCannotStartStaysListedAsExited() async throws {
        try await SessionHome.with { s in
            try FileManager.default.createDirectory(atPath: s.home.path + "/state", withIntermediateDirectories: true)
            let gone = s.home.scratch + "/deleted-project"
            let record = """
                {"version":1,"sessions":[{"id":"0badc0de","name":"ghost","cwd":"\(gone)",
                "createdAt":"2026-01-01T00:00:00Z","lastActivity":"2026-01-01T00:00:00Z"}]}
                """
            try Data(record.utf8).write(to: URL(fileURLWithPath: s.sessionsFile))
            try await s.start()
            let ghost = try await s.waitForState("0badc0de", "exited")
            #expect(ghost["name"] == "ghost")
            #expect(ghost["exitReason"]?.stringValue?.contains("cannot enter working directory \(gone)") == true, "\(ghost)")
            let send = try await s.run("send", "ghost", "hello?")
            #expect(send.status == 1 && send.stderr.contains("could not start pi for session ghost"), "\(send)")
            #expect(try await s.plain("end", "ghost") == "ended\n")
        }
    }

    @Test func aPiThatDiesOnItsOwnIsReportedAndTheNextSendRestartsIt() async throws {
        // 15 s: the prompt and the watcher must be in place before pi dies. Under the thread
        // sanitizer on a busy machine they once took more than 6 s, the watcher came after the
        // exit and waited for an event that had already gone by.
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_DIE_AFTER_MS": "15000"])) { s in
            try await s.start()
            let id = try await s.new(name: "d")
            try await s.prompt(id, "before the crash")
            let first = try await Self.child(s, id)
            let watcher = try SessionStreamWatcher(s, session: "d", name: "d")
            try await watcher.waitFor("watching")

            let exited = try await s.waitForState(id, "exited", timeout: .seconds(45))
            let reason = try #require(exited["exitReason"]?.stringValue)
            #expect(reason.hasPrefix("pi exited with status 1"), "\(reason)")
            #expect(reason.contains("fake-pi: simulated crash after 15000 ms (FAKE_PI_DIE_AFTER_MS)"), "\(reason)")
            let event = try await watcher.waitFor("exited")
            #expect(event["reason"]?.stringValue == reason)
            #expect(event["session"] == "d")
            #expect(try await s.history(id, "--type", "exited").count == 1)

            // The next prompt starts pi again on the same session file; the conversation goes on.
            try await s.prompt(id, "after the crash")
            let second = try await Self.child(s, id)
            #expect(second.pid != first.pid)
            Self.expectResumed(second.pid, first.sessionFile)
            #expect(try await s.json("stats", "d")["totalMessages"] == 4)
            #expect(try await s.last(id) == "Echo: after the crash")
            #expect(await watcher.interrupt() != nil)
        }
    }
}
