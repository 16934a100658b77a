import Foundation
import PiRelaySDK
import Testing

/// Every session subcommand against the real daemon and the fake pi, in plain and `--json`
/// form, and how sessions are named on the command line.
@Suite struct SessionCommandTests {
    /// A session may also be named by pi's pid or by its folder (`.` where the command runs),
    /// and left out when there is only one; two in one folder, or two at all, must be named.
    @Test func sessionsAreFoundByPidOrFolderAndTheOnlyOneNeedsNoName() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let none = try await s.run("state")
            #expect(none.status != 0 && none.stderr.contains("there is no session"), "\(none)")
            let solo = try await s.json("new", "--cwd", s.project, "--name", "solo")
            let file = try #require(solo["sessionFile"]?.stringValue)
            let pid = try #require(solo["pid"]?.intValue)
            #expect(try await s.json("state")["sessionFile"]?.stringValue == file, "the one session")
            #expect(try await s.json("state", String(pid))["sessionFile"]?.stringValue == file, "by pid")
            #expect(try await s.json("state", s.project)["sessionFile"]?.stringValue == file, "by folder")
            let here = try await s.home.cli.run(["state", ".", "--json"], in: s.project)
            #expect(try here.json()["sessionFile"]?.stringValue == file, "by . in its folder: \(here)")

            // What /name means in it, as pi lists it (get_commands): the fake's extension commands.
            let commands = try await s.json("commands")["commands"]?.arrayValue ?? []
            #expect(commands.contains { $0["name"] == "foo" && $0["source"] == "extension" }, "\(commands)")
            #expect(try await s.plain("commands").split(separator: "\n").contains { $0.hasPrefix("/foo\textension") })

            let other = s.home.scratch + "/other"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            let second = try await s.json("new", "--cwd", other, "--name", "second")
            let unnamed = try await s.run("state")
            #expect(unnamed.status != 0 && unnamed.stderr.contains("there are 2"), "\(unnamed)")
            #expect(try await s.json("state", other)["sessionFile"] == second["sessionFile"])
            _ = try await s.json("new", "--cwd", s.project, "--name", "twin")
            let shared = try await s.run("state", s.project)
            #expect(shared.status != 0 && shared.stderr.contains("solo") && shared.stderr.contains("twin"), "\(shared)")
        }
    }

    @Test func newSessionsAreListedAndFoundByIdNameOrPrefix() async throws {
        try await SessionHome.with { s in
            try await s.start()
            #expect(try await s.plain("sessions") == "no sessions; start one with: pi-relayd new DIR\n")
            #expect(try await s.json("sessions") == .array([]))

            // Plain `new`: one tab-separated line naming the session.
            let started = try await s.plain("new", "--cwd", s.project, "--name", "alpha")
            #expect(started.hasPrefix("started session alpha\t"), "\(started)")
            #expect(started.contains("\tidle\t\(s.project)\tanthropic/claude-opus-4-6"), "\(started)")

            // Without --name the directory names it, made unique.
            let second = try await s.json("new", "--cwd", s.project)
            let third = try await s.json("new", "--cwd", s.project)
            #expect(second["name"] == "project")
            #expect(third["name"] == "project-2")
            let id = try #require(second["id"]?.stringValue)
            #expect(id.count == 8 && id.allSatisfy(\.isHexDigit), "\(id)")
            #expect(second["state"] == "idle")
            #expect(second["cwd"]?.stringValue == s.project)
            #expect(second["model"] == "anthropic/claude-opus-4-6")
            #expect(second["thinkingLevel"] == "medium")
            #expect(second["questions"] == 0)
            #expect(second["pid"]?.intValue != nil)
            let file = try #require(second["sessionFile"]?.stringValue, "pi's session file is known from the start")
            #expect(file.hasPrefix(s.agentDir + "/sessions/") && file.hasSuffix(".jsonl"), "\(file)")
            #expect(SessionHome.date(second["lastActivity"]) != nil, "\(second)")

            let list = try await s.json("sessions").arrayValue ?? []
            #expect(list.compactMap { $0["name"]?.stringValue } == ["alpha", "project", "project-2"], "oldest first")
            let plainList = try await s.plain("sessions").split(separator: "\n")
            #expect(plainList.count == 3)
            #expect(plainList[1].hasPrefix("project\t\(id)\tidle\t"), "\(plainList)")

            // Named by id, by name, by a unique prefix of either; an exact name wins over a
            // prefix ("project" is also a prefix of "project-2").
            let files = Dictionary(
                uniqueKeysWithValues: list.compactMap { e in
                    e["name"]?.stringValue.flatMap { name in e["sessionFile"]?.stringValue.map { (name, $0) } }
                })
            #expect(Set(files.values).count == 3, "\(files)")
            let keys = [
                id: "project", "alpha": "alpha", "alp": "alpha", String(id.prefix(5)): "project",
                "project": "project", "project-": "project-2",
            ]
            for (key, name) in keys {
                // pi's own state names its session file, which tells the sessions apart.
                let state = try await s.json("state", key)
                #expect(state["sessionFile"]?.stringValue == files[name], "\(key) should name \(name): \(state)")
            }

            // Ambiguous and unknown names fail with a message that says which and what to do.
            let ambiguous = try await s.run("state", "pro")
            #expect(ambiguous.status == 1)
            #expect(ambiguous.stderr.contains("\"pro\" matches several sessions: project (\(id)), project-2 ("), "\(ambiguous)")
            let unknown = try await s.run("state", "zzz")
            #expect(unknown.status == 1)
            #expect(unknown.stderr == "pi-relayd: no session matches \"zzz\"; see pi-relayd sessions\n", "\(unknown)")
            let unknownJSON = try await s.run("send", "zzz", "hi", "--json")
            #expect(unknownJSON.status == 1)
            #expect(try unknownJSON.json()["error"]?["code"] == "not_found", "\(unknownJSON)")

            let byIdPrefix = try await s.json("rename", String(id.prefix(6)), "renamed")
            #expect(byIdPrefix["id"]?.stringValue == id)
            #expect(byIdPrefix["name"] == "renamed")

            // A taken name and a missing directory are refused.
            let taken = try await s.run("new", "--cwd", s.project, "--name", "alpha")
            #expect(taken.status == 1 && taken.stderr.contains("a session named alpha already exists"), "\(taken)")
            let renameTaken = try await s.run("rename", "alpha", "renamed")
            #expect(renameTaken.status == 1 && renameTaken.stderr.contains("a session named renamed already exists"), "\(renameTaken)")
            let missing = try await s.run("new", "--cwd", s.project + "/nope")
            #expect(missing.status == 1 && missing.stderr.contains("no such directory: \(s.project)/nope"), "\(missing)")
            #expect(try await s.sessions().count == 3)
        }
    }

    @Test func promptsAnswersModelThinkingAndRename() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "work")

            // `omitted fields`: pi answers get_last_assistant_text with `{}` before any answer.
            #expect(try await s.plain("last", "work") == "(no answer yet)\n")
            #expect(try await s.json("last", "work") == ["text": nil])

            let before = try await s.finishedRuns(id)
            #expect(try await s.plain("send", "work", "hello there") == "prompted\n")
            try await waitUntil("the run finished") { try await s.finishedRuns(id) > before }
            try await s.waitForState(id, "idle")
            #expect(try await s.plain("last", "work") == "Echo: hello there\n")
            #expect(try await s.json("last", "work") == ["text": "Echo: hello there"])
            let sent = try await s.prompt(id, "second")
            #expect(sent == ["status": "prompted", "session": .string(id)])

            let state = try await s.json("state", "work")
            #expect(state["messageCount"] == 4, "\(state)")
            #expect(state["isStreaming"] == false)
            #expect(state["model"]?["id"] == "claude-opus-4-6")
            let file = try #require(state["sessionFile"]?.stringValue)
            #expect(
                try await s.plain("state", "work") == """
                    model: anthropic/claude-opus-4-6
                    thinking: medium
                    streaming: no, compacting: no
                    messages: 4, queued: 0
                    session file: \(file)

                    """)
            let stats = try await s.json("stats", "work")
            #expect(stats["userMessages"] == 2 && stats["assistantMessages"] == 2 && stats["totalMessages"] == 4, "\(stats)")
            #expect(stats["tokens"]?["total"]?.intValue ?? 0 > 0, "\(stats)")
            let plainStats = try await s.plain("stats", "work")
            #expect(plainStats.hasPrefix("messages: 4 (2 user, 2 assistant, 0 tool calls, 0 tool results)\ntokens: "), "\(plainStats)")
            #expect(plainStats.contains("\ncost: $0.") && plainStats.hasSuffix("\nsession file: \(file)\n"), "\(plainStats)")

            #expect(try await s.plain("model", "work", "anthropic/claude-sonnet-4-5") == "model set to anthropic/claude-sonnet-4-5\n")
            let model = try await s.json("model", "work", "anthropic/claude-haiku-4-5")
            #expect(model["id"] == "claude-haiku-4-5", "the full Model object: \(model)")
            #expect(try await s.summary(id)?["model"] == "anthropic/claude-haiku-4-5")
            #expect(try await s.json("state", "work")["model"]?["id"] == "claude-haiku-4-5")
            let badModel = try await s.run("model", "work", "nonsense")
            #expect(badModel.status == 1 && badModel.stderr.contains("model needs PROVIDER/MODEL"), "\(badModel)")
            let unknownModel = try await s.run("model", "work", "anthropic/claude-nope")
            #expect(unknownModel.status == 1, "\(unknownModel)")
            #expect(unknownModel.stderr.contains("pi refused set_model: Model not found: anthropic/claude-nope"), "\(unknownModel)")

            #expect(try await s.plain("thinking", "work", "low") == "thinking level set to low\n")
            #expect(try await s.json("thinking", "work", "high") == ["thinkingLevel": "high"])
            #expect(try await s.json("state", "work")["thinkingLevel"] == "high")
            #expect(try await s.summary(id)?["thinkingLevel"] == "high", "sessions shows the new level")
            // Haiku has no xhigh: pi clamps the level, and the answer says what pi chose.
            #expect(try await s.plain("thinking", "work", "xhigh") == "thinking level set to high\n")

            #expect(try await s.plain("rename", "work", "play").hasPrefix("renamed: play\t\(id)\tidle\t"))
            #expect(try await s.summary(id)?["name"] == "play")
            try await waitUntil("pi was told the new name") {
                s.piInput("set_session_name").contains { $0["name"] == "play" }
            }
            #expect(try await s.json("state", "play")["sessionName"] == "play")
            #expect(try await s.run("state", "work").status == 1, "the old name is gone")

            // An image goes to pi as image content after the text.
            let png = s.home.scratch + "/dot.png"
            try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]).write(to: URL(fileURLWithPath: png))
            let runs = try await s.finishedRuns(id)
            #expect(try await s.plain("send", "play", "look", "--image", png) == "prompted\n")
            try await waitUntil("the image run finished") { try await s.finishedRuns(id) > runs }
            #expect(try await s.last(id) == "Echo: look [1 image: image/png]")
            let prompt = try #require(s.piInput("prompt").last)
            #expect(prompt["images"]?[0]?["mimeType"] == "image/png", "\(prompt)")
            let notImage = try await s.run("send", "play", "look", "--image", s.home.path + "/config.yaml")
            #expect(notImage.status == 1 && notImage.stderr.contains("is not a PNG, JPEG, GIF or WebP image"), "\(notImage)")
            // --attach without the attachments plugin: the prompt still goes, naming the file.
            let notes = s.home.scratch + "/notes.txt"
            try Data("remember the milk".utf8).write(to: URL(fileURLWithPath: notes))
            let attachedRuns = try await s.finishedRuns(id)
            let attached = try await s.plain("send", "play", "read this", "--attach", notes)
            #expect(attached == "prompted\nAttachments could not be processed; they are named in the prompt.\n", "\(attached)")
            try await waitUntil("the attachment run finished") { try await s.finishedRuns(id) > attachedRuns }
            #expect(try await s.last(id) == "Echo: read this\n\n[attachment notes.txt: not included: the attachments plugin is not available]")
            // A messenger's copy in the spool is the plugin's to remove; with none, the daemon
            // removes it (it stayed for good). The user's own file stays.
            let spooled = s.home.path + "/state/spool/telegram-1-42-notes.txt"
            try Data("from a chat".utf8).write(to: URL(fileURLWithPath: spooled))
            _ = try await s.plain("send", "play", "and this", "--attach", spooled)
            #expect(!FileManager.default.fileExists(atPath: spooled), "left in the spool")
            #expect(FileManager.default.fileExists(atPath: notes))

            let empty = try await s.run("send", "play", "")
            #expect(empty.status == 1 && empty.stderr.contains("send needs a text"), "\(empty)")
        }
    }

    /// pi-rpc spec §5: `steer` and `follow_up` to an idle pi only wait in its queue. Said to an
    /// idle session, they run now, as prompts, and say so.
    @Test func steerAndFollowUpToAnIdleSessionRunNow() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "idle")
            try await s.waitForState(id, "idle")
            var runs = try await s.finishedRuns(id)
            #expect(try await s.plain("steer", "idle", "turn left") == "prompted\n")
            try await waitUntil("the steer ran", timeout: .seconds(60)) { try await s.finishedRuns(id) > runs }
            try await s.waitForState(id, "idle")
            #expect(try await s.last(id) == "Echo: turn left")
            runs = try await s.finishedRuns(id)
            #expect(try await s.plain("follow-up", "idle", "then stop") == "prompted\n")
            try await waitUntil("the follow-up ran", timeout: .seconds(60)) { try await s.finishedRuns(id) > runs }
            #expect(try await s.last(id) == "Echo: then stop")
        }
    }

    @Test func steerFollowUpAndAbortAReallyBusyAgent() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "busy")
            let runs = try await s.finishedRuns(id)
            // 10 s: three CLI commands must land inside the run on a loaded machine.
            #expect(try await s.plain("send", "busy", "!scenario slow 200 50") == "prompted\n")
            try await s.waitForState(id, "busy")
            #expect(try await s.plain("steer", "busy", "turn left") == "steered\n")
            #expect(try await s.json("follow-up", "busy", "then stop") == ["status": "queued", "session": .string(id)])
            try await waitUntil("the run finished", timeout: .seconds(60)) { try await s.finishedRuns(id) > runs }
            try await s.waitForState(id, "idle")
            // The steer was answered inside the run, the follow-up last.
            #expect(try await s.last(id) == "Echo: then stop")
            let streamed = try await s.history(id, "--type", "text_delta").compactMap { $0["delta"]?.stringValue }.joined()
            #expect(streamed.contains("Echo: turn left"), "\(streamed.suffix(300))")
            let users = try await s.history(id, "--type", "message_start").filter { $0["role"] == "user" }
            #expect(users.count == 3, "prompt, steer and follow-up each reached pi as a user message: \(users)")
            #expect(try await s.finishedRuns(id) == runs + 1, "one run")
            // As prompts with pi's own queueing (pi-rpc spec §5), so that an idle pi runs them.
            let sent = s.piInput("prompt").map { "\($0["streamingBehavior"]?.stringValue ?? "-") \($0["message"]?.stringValue ?? "")" }
            #expect(sent == ["followUp !scenario slow 200 50", "steer turn left", "followUp then stop"], "\(sent)")
            #expect(s.piInput("steer").isEmpty && s.piInput("follow_up").isEmpty)

            // Abort: the run ends as aborted and the session is idle again.
            let aborted = try await s.finishedRuns(id)
            _ = try await s.json("send", "busy", "!scenario slow 400 50")
            try await s.waitForState(id, "busy")
            #expect(try await s.plain("abort", "busy") == "aborted\n")
            try await waitUntil("the aborted run finished") { try await s.finishedRuns(id) > aborted }
            try await s.waitForState(id, "idle")
            let finished = try #require(try await s.history(id, "--type", "run_finished").last)
            #expect(finished["stopReason"] == "aborted", "\(finished)")
            #expect(try await s.json("abort", "busy") == ["aborted": true], "abort while idle is harmless")
        }
    }

    @Test func compactNewConversationAndEnd() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "c")
            try await s.prompt(id, "one")
            try await s.prompt(id, "two")

            let compacted = try await s.plain("compact", "c", "--instructions", "keep the numbers")
            #expect(compacted.hasPrefix("compacted ("), "\(compacted)")
            #expect(compacted.hasSuffix(" tokens before)\n"), "\(compacted)")
            #expect(s.piInput("compact").last?["customInstructions"] == "keep the numbers")
            try await s.prompt(id, "three")
            let json = try await s.json("compact", "c")
            #expect(json["summary"]?.stringValue?.isEmpty == false, "\(json)")
            #expect(json["tokensBefore"]?.intValue != nil, "\(json)")

            let fresh = try await s.json("new-conversation", "c")
            #expect(fresh == ["cancelled": false], "\(fresh)")
            #expect(try await s.json("state", "c")["messageCount"] == 0)
            #expect(try await s.plain("new-conversation", "c") == "new conversation started\n")
            #expect(try await s.last(id) == nil)

            let pid = try #require(try await s.summary(id)?["pid"]?.intValue.map(Int32.init))
            #expect(try await s.plain("end", "c") == "ended\n")
            #expect(try await s.sessions().isEmpty)
            #expect(!ProcessTable.isRunning(pid), "end returns once pi is gone")
            let gone = try await s.run("state", id)
            #expect(gone.status == 1 && gone.stderr.contains("no session matches"), "\(gone)")
            let other = try await s.new(name: "d")
            #expect(try await s.json("end", "d") == ["ended": .string(other)])
            let saved = try String(contentsOfFile: s.sessionsFile, encoding: .utf8)
            #expect(!saved.contains(other) && !saved.contains(id), "an ended session is not brought back by a restart: \(saved)")
        }
    }
}
