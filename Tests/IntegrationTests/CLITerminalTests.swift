import Foundation
import PiRelaySDK
import Testing

/// Issue 16, point 11: runs shown as they happen in a terminal (`send --wait`, `stream --pretty`)
/// through the real formatter's `ansi` dialect, `send -`, and the progress line of long waits.
/// Each test runs the real daemon, the real formatter and the fake pi.
@Suite struct CLITerminalTests {
    static let toolsAnswer = "Tests pass, the TODO is fixed and the notes are written."

    /// A session home whose plugins folder holds the built formatter, which the CLI runs itself.
    static func withFormatter<T>(_ body: (SessionHome) async throws -> T) async throws -> T {
        try await SessionHome.with { s in
            try s.home.linkBuiltPlugin("pi-relay-formatter", as: "formatter")
            try await s.start()
            return try await body(s)
        }
    }

    @Test func sendWaitShowsToolSummariesAndTheAnswerAsPlainTextWhenPiped() async throws {
        try await Self.withFormatter { s in
            _ = try await s.new(name: "api")
            let sent = try await s.run("send", "api", "!scenario tools", "--wait")
            #expect(sent.status == 0, "\(sent)")
            let out = sent.stdout
            #expect(out.contains("I'll inspect the project, run the tests and fix the TODO."), "\(out)")
            #expect(out.contains("🔧 $ npm test"), "tool summaries, as a chat shows them: \(out)")
            #expect(out.contains("🔧 read src/app.ts"), "\(out)")
            #expect(out.contains("❌ $ make lint"), "\(out)")
            #expect(out.contains(Self.toolsAnswer + " make lint still reports one"), "inline code without its backticks: \(out)")
            #expect(!out.contains("\u{1B}"), "no escape sequence into a pipe: \(out.debugDescription)")
            #expect(out.split(separator: "\n").filter { $0.contains(Self.toolsAnswer) }.count == 1, "each line once: \(out)")
            #expect(sent.stderr.isEmpty, "no progress or colour on a pipe: \(sent.stderr.debugDescription)")

            // --json: the finished run for a script.
            let json = try await s.json("send", "api", "!scenario text 12", "--wait")
            #expect(json["status"] == "prompted" && json["run"]?["done"] == true && json["run"]?["stopReason"] == "stop", "\(json)")
            #expect((json["text"]?.stringValue ?? "").split(separator: " ").count >= 12, "\(json)")

            // A run that fails exits 1, after showing pi's error.
            let failed = try await s.run("send", "api", "!scenario error", "--wait")
            #expect(failed.status == 1 && failed.stdout.contains("⚠️ Error"), "\(failed)")
        }
    }

    @Test func sendWaitOnATerminalIsColouredUnlessNoColor() async throws {
        try await Self.withFormatter { s in
            _ = try await s.new(name: "api")
            let terminal = TerminalCommand(home: s.home)
            let coloured = try await terminal.run("send", "api", "!scenario tools", "--wait")
            #expect(coloured.status == 0, "\(coloured)")
            #expect(coloured.stdout.contains("\u{1B}[36mmake lint\u{1B}[0m"), "inline code in cyan: \(coloured.stdout.debugDescription)")
            #expect(coloured.stdout.contains(Self.toolsAnswer), "\(coloured.stdout.debugDescription)")

            let plain = try await terminal.run(["send", "api", "!scenario tools", "--wait"], environment: ["NO_COLOR": "1"])
            #expect(plain.status == 0, "\(plain)")
            #expect(plain.stdout.contains(Self.toolsAnswer + " make lint still"), "\(plain.stdout.debugDescription)")
            #expect(!plain.stdout.contains("\u{1B}[36m") && !plain.stdout.contains("\u{1B}[0m"), "NO_COLOR: \(plain.stdout.debugDescription)")
        }
    }

    @Test func sendDashReadsThePromptFromStdin() async throws {
        try await Self.withFormatter { s in
            _ = try await s.new(name: "api")
            let input = s.home.scratch + "/prompt.txt"
            try "!scenario echo\nsecond line of the prompt, no LF at the end".write(toFile: input, atomically: true, encoding: .utf8)
            let process = try SpawnedProcess(
                BuildProducts.relayd, ["send", "api", "-", "--wait", "--json"], environment: s.home.environment(),
                stdoutPath: s.home.scratch + "/stdin-send.out", stderrPath: s.home.scratch + "/stdin-send.err", stdinPath: input)
            let exit = await process.wait(timeout: .seconds(60))
            #expect(exit == .exited(0), "\(process.stdout) \(process.stderr)")
            let sent = try JSONValue.parse(process.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(sent["run"]?["done"] == true, "\(sent)")
            let prompts = try String(contentsOfFile: s.piLog, encoding: .utf8).split(separator: "\n")
                .compactMap { try? JSONValue.parse(String($0)) }.filter { $0["type"] == "prompt" }
            #expect(
                prompts.last?["message"]?.stringValue == "!scenario echo\nsecond line of the prompt, no LF at the end",
                "the whole of stdin is the prompt: \(prompts)")

            let empty = try SpawnedProcess(
                BuildProducts.relayd, ["send", "api", "-"], environment: s.home.environment(),
                stdoutPath: s.home.scratch + "/empty.out", stderrPath: s.home.scratch + "/empty.err")
            #expect(await empty.wait(timeout: .seconds(30)) == .exited(1) && empty.stderr.contains("the prompt on stdin is empty"), "\(empty.stderr)")
        }
    }

    @Test func streamPrettyShowsRunsAndQuestionsWithHowToAnswer() async throws {
        try await Self.withFormatter { s in
            let id = try await s.new(name: "api")
            let watcher = try SpawnedProcess(
                BuildProducts.relayd, ["stream", "api", "--pretty"], environment: s.home.environment(),
                stdoutPath: s.home.scratch + "/pretty.out", stderrPath: s.home.scratch + "/pretty.err")
            s.home.adopt(watcher)
            _ = try await waitFor("stream --pretty watches", timeout: .seconds(30)) { watcher.stdout.contains("watching api") ? true : nil }

            #expect(try await s.json("send", "api", "!scenario ui ask-select")["status"] == "prompted")
            let asked = try await waitFor("the question is shown", timeout: .seconds(30)) { () -> String? in
                let out = watcher.stdout
                return out.contains("answer: pi-relayd answer api") ? out : nil
            }
            #expect(asked.contains("❓ Question: Pick a colour — 1 red · 2 green · 3 blue"), "\(asked)")
            let questions = try await s.json("questions", "api")
            let questionID = try #require(questions.arrayValue?.first?["id"]?.stringValue, "\(questions)")
            #expect(asked.contains("answer: pi-relayd answer api \(questionID.prefix(8)) NUMBER|TEXT"), "\(asked)")

            _ = try await s.plain("answer", "api", String(questionID.prefix(8)), "2")
            try await s.waitForState(id, "idle")
            let shown = try await waitFor("the answer is shown", timeout: .seconds(30)) { () -> String? in
                let out = watcher.stdout
                return out.contains("select answer: \"green\"") ? out : nil
            }
            #expect(shown.contains("I have a question for you."), "\(shown)")
            let answered = try #require(shown.range(of: "question answered by terminal"), "\(shown)")
            #expect(shown.range(of: "select answer: \"green\"")!.lowerBound > answered.lowerBound, "in order: \(shown)")
            #expect(!shown.contains("\u{1B}"), "\(shown.debugDescription)")
            #expect(watcher.poll() == nil, "stream --pretty goes on watching: \(watcher.stderr)")
            watcher.signal(SIGINT)
            _ = await watcher.wait(timeout: .seconds(10))

            let both = try await s.run("stream", "api", "--pretty", "--json")
            #expect(both.status == 64, "\(both)")
        }
    }

    /// start, new, compact and stop wait on the daemon: a terminal sees a progress line, cleared
    /// at the end; a pipe sees nothing.
    @Test func longWaitsShowAProgressLineOnlyOnATerminal() async throws {
        try await SessionHome.with { s in
            let terminal = TerminalCommand(home: s.home)
            let clear = "\r\u{1B}[2K"
            let started = try await terminal.run("start")
            #expect(
                started.status == 0 && started.stdout.contains("starting pi-relayd… 0s") && started.stdout.contains(clear),
                "\(started.stdout.debugDescription)")
            #expect(started.stdout.contains(clear + "pi-relayd started"), "cleared before the result: \(started.stdout.debugDescription)")

            let made = try await terminal.run("new", s.project, "api")
            #expect(
                made.status == 0 && made.stdout.contains("starting pi…") && made.stdout.contains(clear + "started session api"),
                "\(made.stdout.debugDescription)")
            let compacted = try await terminal.run("compact", "api")
            #expect(compacted.status == 0 && compacted.stdout.contains("compacting…"), "\(compacted.stdout.debugDescription)")

            let stopped = try await terminal.run("stop")
            #expect(
                stopped.status == 0 && stopped.stdout.contains("stopping pi-relayd…") && stopped.stdout.contains(clear + "pi-relayd stopped"),
                "\(stopped.stdout.debugDescription)")

            // Piped, the same commands write only their result.
            for arguments in [["start"], ["compact", "api"], ["new", s.project, "web"], ["stop"]] {
                let piped = try await s.run(arguments)
                #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped)")
            }
        }
    }
}
