import PiRelaySDK
import Testing

@testable import FormatterPlugin

@Suite struct LiveViewTests {
    /// A fresh plugin instance for every call, as after a restart: answers depend on the input only.
    func live(_ run: JSONValue, limit: Int, config: FormatterConfig = FormatterConfig()) throws -> (chunks: [String], tail: String) {
        let result = try RelayFormatter(config: config).respond(to: "format.live", params: ["run": run, "limit": JSONValue(limit)])
        return ((result["chunks"]?.arrayValue ?? []).compactMap(\.stringValue), result["tail"]?.stringValue ?? "")
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func finishedChunksNeverChange(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let limit = rng.pick([200, 333, 500, 2000])
        var config = FormatterConfig()
        config.showThinking = rng.chance(0.5)
        let growing = GrowingRun(seed: seed, items: rng.int(4...10))
        var posted: [String] = []
        for (step, state) in growing.states.enumerated() {
            let (chunks, tail) = try live(state, limit: limit, config: config)
            guard chunks.count >= posted.count, Array(chunks.prefix(posted.count)) == posted else {
                Issue.record("seed \(seed) step \(step): a finished chunk changed or disappeared")
                return
            }
            #expect(chunks.allSatisfy { $0.utf16.count <= limit })
            #expect(tail.utf16.count <= limit)
            posted = chunks
        }
        // The finished run: chunks and tail are the whole document, and so are the final messages.
        let last = try RunView(rendering: growing.states.last!)
        let document = RunRenderer(config: config, redactor: try Redactor(patterns: []), target: .chat).document(last)
        let (chunks, tail) = try live(growing.states.last!, limit: limit, config: config)
        #expect(try ChunkNormaliser.join(chunks + [tail], numbered: false).text == document)
        let final = try RelayFormatter(config: config).respond(
            to: "format.final", params: ["run": growing.states.last!, "limit": JSONValue(limit), "maxChunks": 0])
        let messages = (final["messages"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(try ChunkNormaliser.join(messages, numbered: true).text == document.trimmingTrailingNewlines())
        #expect(posted.count > 0)
    }

    @Test func sameInputGivesTheSameAnswer() throws {
        let growing = GrowingRun(seed: 42, items: 6)
        for state in growing.states.prefix(40) {
            let a = try live(state, limit: 300)
            let b = try live(state, limit: 300)
            #expect(a.chunks == b.chunks && a.tail == b.tail)
        }
    }

    @Test func aTokenStillStreamingIsHeldBack() throws {
        let body = "a1B2" + String(repeating: "qZ7x", count: 10)
        let text = "Here is the key: ghp_" + body + " — keep it safe.\n"
        var shown = ""
        for n in 1...text.count {
            let run = RunFixture.run([RunFixture.text(String(text.prefix(n)))], done: false, stopReason: nil)
            let (chunks, tail) = try live(run, limit: 2000)
            shown = (chunks + [tail]).joined()
            #expect(!shown.contains("a1B2qZ7x"), "step \(n): \(shown)")
        }
        #expect(shown.contains("ghp_[REDACTED]"))
    }

    @Test func aTableStillGrowingIsNotFinalized() throws {
        let intro = String(repeating: "Some words before the table. ", count: 12) + "\n\n"
        var rows = "| name | 値 |\n|---|---|\n"
        var lastChunks: [String] = []
        for i in 1...30 {
            rows += "| row\(i) | " + String(repeating: "長", count: i) + " |\n"
            let run = RunFixture.run([RunFixture.text(intro + rows)], done: false, stopReason: nil)
            let (chunks, tail) = try live(run, limit: 200)
            #expect(Array(chunks.prefix(lastChunks.count)) == lastChunks)
            // No chunk contains part of the table until it is finished.
            #expect(chunks.allSatisfy { !$0.contains("row") })
            #expect(tail.utf16.count <= 200)
            lastChunks = chunks
        }
    }

    @Test func runningToolsStayInTheTailAndFinishedOnesSettle() throws {
        let text = RunFixture.text(String(repeating: "A paragraph of settled text. ", count: 30) + "\n\nMore.\n")
        let running = RunFixture.run(
            [text, RunFixture.tools([RunFixture.call("bash", ["command": "swift build"], done: false)])],
            done: false, stopReason: nil)
        let (_, tail) = try live(running, limit: 300)
        #expect(tail.contains("⏳ `$ swift build`"))
        let finished = RunFixture.run(
            [text, RunFixture.tools([RunFixture.call("bash", ["command": "swift build"])]), RunFixture.text("Done")],
            done: true)
        let (chunks, finalTail) = try live(finished, limit: 300)
        #expect((chunks + [finalTail]).joined().contains("🔧 `$ swift build`"))
        #expect(finalTail.hasSuffix("Done\n"))
    }

    @Test func anOpenCodeFenceIsClosedInTheTailAndReopenedAcrossChunks() throws {
        let code = (1...60).map { "print(\($0))" }.joined(separator: "\n")
        let run = RunFixture.run([RunFixture.text("Code:\n\n```python\n" + code + "\n")], done: false, stopReason: nil)
        let (chunks, tail) = try live(run, limit: 200)
        #expect(!chunks.isEmpty)
        for chunk in chunks {
            var tracker = FenceTracker()
            tracker.feed(chunk)
            #expect(tracker.openIfLineEnded == nil)
        }
        #expect(tail.hasPrefix("```python\n"))
        var tracker = FenceTracker()
        tracker.feed(tail)
        #expect(tracker.openIfLineEnded == nil)
    }

    @Test func noticesRenderInline() throws {
        let run = RunFixture.run(
            [
                RunFixture.text("Working."), RunFixture.notice("retry", "overloaded (attempt 1/3, retrying in 2 s)"),
                RunFixture.notice("compaction", "context compacted"),
            ], done: false, stopReason: nil)
        let (_, tail) = try live(run, limit: 2000)
        #expect(tail == "Working.\n\n🔁 Retrying: overloaded (attempt 1/3, retrying in 2 s)\n\n🗜 Compaction: context compacted\n")
    }
}
