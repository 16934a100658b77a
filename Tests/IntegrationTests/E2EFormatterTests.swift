import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 4 end to end: what a chat shows of a session's runs, through the real daemon, the real
/// formatter plugin and the fake messenger.
@Suite struct E2EFormatterTests {
    static let toolMarks = ["🔧", "❌", "⏳"]

    /// Discord's limit, where the long answer fits one message, and a smaller one that splits it.
    @Test(arguments: [2000, 700])
    func longAnswerReadsRightInTheMessengerAndRendersTheSame(limit: Int) async throws {
        try await E2EChatHome.with { chat in
            // Recorded beside the daemon run: the fake pi run directly, prompt on stdin.
            async let recording = chat.recordPiStream(prompt: "!scenario long", name: "long")
            _ = try await chat.start(environment: ["FAKE_MAX_LEN": "\(limit)"])
            _ = try await chat.newBoundSession("demo")
            let sent = try await chat.say("!scenario long")
            #expect(sent["status"] == "prompted", "\(sent)")
            let final = try await chat.waitForFinal(1)
            let chunks = (final["chunks"]?.arrayValue ?? []).compactMap(\.stringValue)

            let transcript = chunks.enumerated().map { "--- message \($0.offset + 1) ---\n\($0.element)" }.joined(separator: "\n")
            let saved = chat.home.scratch + "/long-answer-transcript-\(limit).md"
            try transcript.write(toFile: saved, atomically: true, encoding: .utf8)
            print("long answer as the fake messenger received it, limit \(limit) (saved to \(saved)):\n\(transcript)\n--- end ---")

            try #require(!chunks.isEmpty, "\(final)")
            #expect(limit == 2000 ? chunks.count == 1 : chunks.count > 1, "\(chunks.count) chunks at limit \(limit)")
            #expect(final["files"] == nil, "the whole answer fits in chunks: \(final)")
            for (i, chunk) in chunks.enumerated() {
                #expect(chunk.utf16.count <= limit, "chunk \(i + 1) is \(chunk.utf16.count) UTF-16 units")
                #expect(E2EChunks.fencesBalanced(Substring(chunk)), "chunk \(i + 1) leaves a fence open:\n\(chunk)")
                if chunks.count > 1 {
                    let label = E2EChunks.label(of: chunk)
                    #expect(label?.index == i + 1 && label?.total == chunks.count, "chunk \(i + 1) is labelled \(String(describing: label))")
                } else {
                    #expect(E2EChunks.label(of: chunk) == nil)
                }
            }

            // One line per tool call, the calls of one assistant message (run in parallel) together.
            let stream = E2EChatHome.jsonLines(try await recording)
            let callsPerMessage = stream.filter { $0["type"] == "message_end" && $0["message"]?["role"] == "assistant" }
                .map { ($0["message"]?["content"]?.arrayValue ?? []).filter { $0["type"] == "toolCall" }.count }
                .filter { $0 > 0 }
            #expect(callsPerMessage.reduce(0, +) >= 12, "the scenario makes a dozen calls: \(callsPerMessage)")
            let document = E2EChunks.joined(chunks)
            let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let isTool = { (line: String) in Self.toolMarks.contains { line.hasPrefix($0) } }
            var groups: [[String]] = []
            var previousWasTool = false
            for line in lines {
                if isTool(line) {
                    if previousWasTool { groups[groups.count - 1].append(line) } else { groups.append([line]) }
                }
                previousWasTool = isTool(line)
            }
            #expect(groups.map(\.count) == callsPerMessage, "tool lines grouped per assistant message:\n\(groups)")
            for start in stream.filter({ $0["type"] == "tool_execution_start" }) {
                let args = start["args"]
                guard let shown = args?["path"]?.stringValue ?? args?["command"]?.stringValue, shown.count < 60 else { continue }
                #expect(groups.joined().contains { $0.contains(shown) }, "no tool line shows \(shown)")
            }
            #expect(groups.joined().allSatisfy { $0.hasPrefix("🔧") }, "every call finished well")

            // The table is an aligned code block, and no raw table row is left.
            let table = try #require(E2ETable(in: document, containing: ["File", "Change", "Lines"]), "no table block in:\n\(document)")
            #expect(table.isAligned, "\(table.lines.joined(separator: "\n"))")
            #expect(table.lines.contains { $0.contains("docs/NOTES.md") && $0.contains("+12") })
            #expect(!lines.contains { $0.hasPrefix("|") }, "a raw markdown table row reached the chat")
            for language in ["swift", "python", "bash", "json"] {
                #expect(lines.contains("```" + language), "the \(language) block keeps its fence")
            }
            #expect(document.contains("👨‍👩‍👧‍👦") && document.contains("日本語"))

            // `pi-relayd render` on the recorded stream prints the same messages.
            let rendered = try await chat.run(["render", try await recording, "--limit", "\(limit)"])
            #expect(rendered.stdout.trimmingCharacters(in: .newlines) == transcript, "render printed:\n\(rendered.stdout)")
        }
    }

    /// More chunks than `maxChunks` (4 by default): a preview in one message and the whole
    /// answer as a markdown file, spooled for the messenger to upload.
    @Test func answerTooLongForTheChatComesAsPreviewAndFile() async throws {
        try await E2EChatHome.with { chat in
            let limit = 300
            _ = try await chat.start(environment: ["FAKE_MAX_LEN": "\(limit)"])
            _ = try await chat.newBoundSession("demo")
            _ = try await chat.say("!scenario long")
            let final = try await chat.waitForFinal(1)
            let chunks = (final["chunks"]?.arrayValue ?? []).compactMap(\.stringValue)
            let file = try #require(final["files"]?[0], "\(final)")
            let name = try #require(file["filename"]?.stringValue)
            #expect(chunks.count == 1 && chunks[0].utf16.count <= limit, "\(chunks)")
            #expect(name.hasSuffix(".md") && chunks[0].contains(name), "the preview names the file: \(chunks)")
            let path = try #require(file["path"]?.stringValue)
            #expect(path.hasPrefix(chat.home.path + "/state/spool/"), "\(path)")
            let document = try String(contentsOfFile: path, encoding: .utf8)
            for expected in ["I refactored the request handling", "docs/NOTES.md", "seq 1 3000", "```swift", "open a PR"] {
                #expect(document.contains(expected), "the file lacks \(expected):\n\(document)")
            }
            #expect(E2EChunks.fencesBalanced(Substring(document)))
        }
    }

    /// The file cannot be written (a full disk; here the spool is no folder): the answer is not
    /// cut to its preview but posted whole, in messages, and the log says why.
    @Test func anAnswerWhoseFileCannotBeWrittenComesWhole() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start(environment: ["FAKE_MAX_LEN": "300"])
            _ = try await chat.newBoundSession("full")
            let spool = chat.home.path + "/state/spool"
            try? FileManager.default.removeItem(atPath: spool)
            try Data("not a folder\n".utf8).write(to: URL(fileURLWithPath: spool))
            _ = try await chat.say("!scenario long")
            let final = try await chat.waitForFinal(1)
            #expect(final["files"]?.arrayValue?.isEmpty ?? true, "\(final)")
            let text = E2EChunks.joined((final["chunks"]?.arrayValue ?? []).compactMap(\.stringValue))
            // The answer's text, first to last (the tool lines are the file's, not the answer's).
            for expected in ["I refactored the request handling", "open a PR"] {
                #expect(text.contains(expected), "the messages lack \(expected)")
            }
            #expect(chat.home.read("logs/pi-relayd.log").contains("the answer goes to the chat whole, in messages"))
        }
    }

    @Test func killingTheFormatterWhileASessionStreamsLosesNoMessage() async throws {
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start()
            let sid = try await chat.newBoundSession("crashy")
            let first = try #require(try await daemon.plugins()["formatter"]?.pid)
            _ = try await chat.say("!scenario slow 60 100")
            try await waitUntil("live views reach the messenger") { !chat.lives(runID: "\(sid)-1").isEmpty }

            // Stopped, the formatter takes the next live request and never answers; killed with
            // that request pending, it leaves it to be retried on the next instance.
            kill(first, SIGSTOP)
            try await daemon.waitForPlugin("formatter", "holds a live request") { $0.pendingRequests > 0 }
            kill(first, SIGKILL)
            let second = try #require(
                try await daemon.waitForPlugin("formatter", "is running again") {
                    $0.state == "running" && $0.pid != nil && $0.pid != first
                }.pid)
            let final = try await chat.waitForFinal(1)
            let text = E2EChunks.joined((final["chunks"]?.arrayValue ?? []).compactMap(\.stringValue))
            #expect(text.contains("chunk 1 ") && text.contains("chunk 60"), "\(final)")
            #expect(final["runId"]?.stringValue == "\(sid)-1")
            let livesAfterCrash = chat.lives(runID: "\(sid)-1").count
            #expect(livesAfterCrash >= 2, "the live view went on with the new instance")

            // Now with the final answer itself in flight: the run ends while the formatter is
            // stopped, so format.final waits on it; killed, the request goes to the third instance.
            kill(second, SIGSTOP)
            _ = try await chat.say("!scenario text 20")
            try await waitUntil("the second run is over") {
                try await chat.run(["history", "crashy", "--type", "run_finished", "--json"]).json().arrayValue?.count == 2
            }
            try await daemon.waitForPlugin("formatter", "holds the final request") { $0.pendingRequests > 0 }
            #expect(chat.posts("final").count == 1, "the second answer waits for the formatter")
            kill(second, SIGKILL)
            let third = try await daemon.waitForPlugin("formatter", "is running a third time") {
                $0.state == "running" && $0.pid != nil && $0.pid != second
            }
            #expect(third.restarts == 2, "\(third)")
            let answer = try await chat.waitForFinal(2)
            #expect(answer["runId"]?.stringValue == "\(sid)-2", "\(answer)")

            try await waitUntil("the messenger has acked everything", timeout: .seconds(30)) {
                try await daemon.plugins()["fake-messenger"]?.outbox == 0
            }
            let finals = chat.messengerEvents().filter { $0["event"] == "deliver" && $0["params"]?["kind"] == "final" }
            #expect(finals.compactMap { $0["params"]?["runId"]?.stringValue } == ["\(sid)-1", "\(sid)-2"], "each answer once")

            // The third instance formatted the second answer: no plain fallback, no failed request.
            let status = try await chat.run(["plugin", "call", "formatter", "status"]).json()
            #expect(status["requests"]?["format.final"] == 1, "\(status)")
            let log = chat.home.daemonLog
            #expect(!log.contains("formatter format."), "a formatter request failed:\n\(log)")
        }
    }

    @Test func liveViewKeepsFinishedChunksAndTheFinalReplacesThem() async throws {
        try await E2EChatHome.with { chat in
            let limit = 100
            let daemon = try await chat.start(chat.config(formatter: ["maxChunks: 0"]), environment: ["FAKE_MAX_LEN": "\(limit)"])
            let sid = try await chat.newBoundSession("watch")
            let runID = "\(sid)-1"
            let sent = try await chat.say("!scenario slow 24 80")
            #expect(sent["status"] == "prompted", "\(sent)")
            try await waitUntil("the run is live") { !chat.lives(runID: runID).isEmpty }
            // Queued while the first message streams: the run goes on with a second assistant
            // message, which settles the first one into finished chunks.
            let queued = try await chat.say("!scenario slow 40 80")
            #expect(queued["status"] == "queued", "\(queued)")

            // The formatter promises the same finished chunks from any instance: kill it once
            // they are showing, and the views after its restart must still extend them.
            try await waitUntil("finished chunks are live") {
                chat.lives(runID: runID).contains { $0["chunks"]?.arrayValue?.isEmpty == false }
            }
            let seenBeforeCrash = chat.lives(runID: runID).count
            let formatter = try #require(try await daemon.plugins()["formatter"]?.pid)
            kill(formatter, SIGKILL)
            try await daemon.waitForPlugin("formatter", "is running again") { $0.state == "running" && $0.pid != nil && $0.pid != formatter }

            let final = try await chat.waitForFinal(1)
            #expect(final["runId"]?.stringValue == runID, "\(final)")
            let lives = chat.lives(runID: runID)
            #expect(lives.count >= 3, "live views during the run: \(lives.count)")
            let revs = lives.compactMap { $0["rev"]?.intValue }
            #expect(revs == revs.sorted() && Set(revs).count == revs.count, "revisions only grow: \(revs)")

            let views = lives.map { (($0["chunks"]?.arrayValue ?? []).compactMap(\.stringValue), $0["tail"]?.stringValue ?? "") }
            #expect(
                views.dropFirst(seenBeforeCrash).contains { !$0.0.isEmpty },
                "live views from the restarted formatter: \(views.count - seenBeforeCrash)")
            for (i, view) in views.enumerated() {
                for chunk in view.0 + [view.1] {
                    #expect(chunk.utf16.count <= limit, "live view \(i): \(chunk.utf16.count) units: \(chunk)")
                }
                if i > 0 {
                    let before = views[i - 1].0
                    #expect(Array(view.0.prefix(before.count)) == before, "finished chunks changed between revisions \(revs[i - 1]) and \(revs[i])")
                }
            }

            // After the final, no live view of that run; the final holds everything the live
            // chunks showed, then the rest of the run.
            let events = chat.messengerEvents()
            let finalAt = try #require(events.firstIndex { $0["event"] == "deliver" && $0["params"]?["kind"] == "final" })
            #expect(!events[finalAt...].contains { $0["method"] == "chat.live" && $0["params"]?["runId"]?.stringValue == runID })
            let chunks = (final["chunks"]?.arrayValue ?? []).compactMap(\.stringValue)
            #expect(chunks.allSatisfy { $0.utf16.count <= limit })
            let words = { (s: String) in s.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            let finalText = words(E2EChunks.joined(chunks))
            let liveText = words(views.last?.0.joined(separator: " ") ?? "")
            #expect(finalText.hasPrefix(liveText), "final:\n\(finalText)\nlive chunks:\n\(liveText)")
            let chunkWords = { (n: Int) in (1...n).map { "chunk \($0)" }.joined(separator: " ") }
            #expect(finalText == chunkWords(24) + " " + chunkWords(40), "\(finalText)")
        }
    }

    @Test func secretsAreMaskedInEverythingTheMessengerReceives() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start()
            _ = try await chat.newBoundSession("keys")
            // A second chat watching the same session sees prompts from the first as echoes.
            let reply = try await chat.inject("chat.command", ["chat": E2EChatHome.chat("c2"), "name": "use", "args": ["session": "keys"]])
            #expect(reply["text"]?.stringValue?.hasPrefix("Watching") == true, "\(reply)")

            let anthropic = "sk-ant-api03-FAKEfake0123456789abcdefghijKLMNOPqrstuvWXYZ"
            let github = "ghp_FAKE0123456789abcdefghijklmnopqrstuvwx"
            let bodies = ["FAKEfake0123456789", "FAKE0123456789abcdef"]
            // From the terminal: echoed to both chats; pi echoes it back as its answer.
            try await chat.run(["send", "keys", "deploy with \(anthropic) and push with \(github)"])
            _ = try await chat.waitForFinal(2)
            // From a chat: echoed to the other; and as an extension command, pi notifies it back.
            _ = try await chat.say("rotate \(anthropic) now")
            _ = try await chat.waitForFinal(4)
            _ = try await chat.say("/foo \(github)")
            try await waitUntil("the extension's notice reaches both chats, the command's echo the other") {
                chat.posts("notice").count >= 2 && chat.posts("echo").count >= 4
            }

            let echoes = chat.posts("echo")
            #expect(echoes.count == 4, "\(echoes)")
            #expect(echoes.allSatisfy { $0["text"]?.stringValue?.contains("[REDACTED]") == true }, "\(echoes)")
            #expect(chat.posts("final").allSatisfy { $0.serialized().contains("[REDACTED]") })
            let received = (try? String(contentsOfFile: chat.messengerLog, encoding: .utf8)) ?? ""
            for body in bodies {
                #expect(!received.contains(body), "a secret reached the messenger:\n\(received)")
            }
            // The secrets did reach pi: the masking is in what comes back, not in what goes in.
            let prompts = chat.piCommands("prompt").compactMap { $0["message"]?.stringValue }.joined()
            #expect(bodies.allSatisfy { prompts.contains($0) })
        }
    }

    /// Without a formatter the daemon still delivers answers, split plainly: whole, in order,
    /// within the limit, and with values it knows to be secret (from secret-named environment
    /// variables) masked.
    @Test func withoutAFormatterAnswersArriveWholeAndMasked() async throws {
        try await E2EChatHome.with { chat in
            let limit = 100
            let key = "sk-ant-api03-KNOWNsecret0123456789abcdefghijKLMN"
            var config = chat.config()
            config.plugins.disabled = ["formatter"]
            _ = try await chat.start(config, environment: ["ANTHROPIC_API_KEY": key, "FAKE_MAX_LEN": "\(limit)"])
            _ = try await chat.newBoundSession("plain")
            try await chat.run(["send", "plain", "is \(key) still valid?"])
            let final = try await chat.waitForFinal(1)
            #expect(final.serialized().contains("[redacted]"), "\(final)")
            try await waitUntil("the echo reaches the chat") { !chat.posts("echo").isEmpty }
            let received = (try? String(contentsOfFile: chat.messengerLog, encoding: .utf8)) ?? ""
            #expect(!received.contains("KNOWNsecret0123456789"), "a known secret reached the messenger:\n\(received)")

            // One line longer than the limit, with a two-unit emoji right at the cut ("Echo: "
            // and 93 letters are 99 units).
            let line = String(repeating: "a", count: 93) + "🎉" + String(repeating: "b", count: 40) + " 👨‍👩‍👧‍👦 end"
            _ = try await chat.say(line)
            let answer = try await chat.waitForFinal(2)
            let chunks = (answer["chunks"]?.arrayValue ?? []).compactMap(\.stringValue)
            #expect(chunks.allSatisfy { $0.utf16.count <= limit }, "\(chunks.map(\.utf16.count))")
            #expect(chunks.joined() == "Echo: " + line, "\(chunks)")

            // Exactly the limit: one message, no empty one before it.
            let full = String(repeating: "c", count: limit - "Echo: ".count)
            _ = try await chat.say(full)
            let exact = try await chat.waitForFinal(3)
            #expect(exact["chunks"] == [.string("Echo: " + full)], "\(exact)")
        }
    }

    @Test(arguments: [false, true])
    func thinkingIsHiddenUnlessConfigured(_ showThinking: Bool) async throws {
        try await E2EChatHome.with { chat in
            // `yes`, not `true`: the daemon hands the plugin a boolean either way.
            _ = try await chat.start(chat.config(formatter: showThinking ? ["showThinking: yes"] : []))
            _ = try await chat.newBoundSession("think")
            _ = try await chat.say("!scenario thinking 30")
            let final = try await chat.waitForFinal(1)
            let history = try await chat.run(["history", "think", "--type", "thinking_delta", "--json"]).json()
            let thinking = (history.arrayValue ?? []).compactMap { $0["delta"]?.stringValue }.joined()
            let phrase = thinking.split(whereSeparator: \.isWhitespace).prefix(4).joined(separator: " ")
            try #require(phrase.split(separator: " ").count == 4, "pi thought: \(thinking)")

            let shown = chat.messengerEvents().filter { $0["event"] == "deliver" || $0["event"] == "notify" }
                .map { $0["params"]?.serialized() ?? "" }.joined(separator: "\n")
            let finalText = E2EChunks.joined((final["chunks"]?.arrayValue ?? []).compactMap(\.stringValue))
            if showThinking {
                #expect(finalText.contains("💭"), "\(finalText)")
                #expect(finalText.contains(phrase), "thinking \"\(phrase)\" not in:\n\(finalText)")
            } else {
                #expect(!shown.contains("💭"), "\(shown)")
                #expect(!shown.contains(phrase), "thinking \"\(phrase)\" shown:\n\(shown)")
                #expect(!finalText.isEmpty)
            }
        }
    }
}
