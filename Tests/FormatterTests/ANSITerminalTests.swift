import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// `dialect: ansi`: runs, notices and questions for a terminal (`send --wait`, `stream --pretty`).
@Suite struct ANSITerminalTests {
    static let dialect: JSONValue = "ansi"
    static let bold = "\u{1B}[1m", italic = "\u{1B}[3m", cyan = "\u{1B}[36m", dim = "\u{1B}[2m", reset = "\u{1B}[0m"

    func final(_ run: JSONValue, limit: Int = 100_000, config: FormatterConfig = FormatterConfig()) throws -> [String] {
        let params: JSONValue = ["run": run, "limit": JSONValue(limit), "dialect": Self.dialect, "maxChunks": 0]
        let result = try RelayFormatter(config: config).respond(to: "format.final", params: params)
        return (result["messages"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    func live(_ run: JSONValue, limit: Int) throws -> (chunks: [String], tail: String) {
        let result = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.live", params: ["run": run, "limit": JSONValue(limit), "dialect": Self.dialect])
        return ((result["chunks"]?.arrayValue ?? []).compactMap(\.stringValue), result["tail"]?.stringValue ?? "")
    }

    /// The text with the formatter's SGR sequences taken out; an escape that is not one stays.
    static func plain(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let escape = rest.firstIndex(of: "\u{1B}") {
            out += rest[..<escape]
            let after = rest[escape...].dropFirst()
            guard after.first == "[", let end = after.firstIndex(of: "m"),
                after[after.index(after: after.startIndex)..<end].allSatisfy({ $0.isNumber || $0 == ";" })
            else {
                out += rest[escape...]
                return out
            }
            rest = after[after.index(after: end)...]
        }
        return out + rest
    }

    @Test func toolSummariesTextAndMarkdownBecomeStyles() throws {
        let run = RunFixture.run([
            RunFixture.tools([
                RunFixture.call("bash", ["command": "swift test"], isError: true, output: "Command exited with code 1"),
                RunFixture.call("read", ["path": "Sources/App.swift"]),
            ]),
            RunFixture.text(
                "# Result\n\n**Bold**, *italic*, `code` and [docs](https://x.dev/?a=1&b=2).\n\n```swift\nlet a = 1\n\nlet b = 2\n```\nDone."),
        ])
        let messages = try final(run)
        #expect(
            messages == [
                "❌ \(Self.cyan)$ swift test\(Self.reset) (exit 1)\n🔧 read \(Self.cyan)Sources/App.swift\(Self.reset)\n\n"
                    + "\(Self.bold)Result\(Self.reset)\n\n"
                    + "\(Self.bold)Bold\(Self.reset), \(Self.italic)italic\(Self.reset), \(Self.cyan)code\(Self.reset) and "
                    + "\u{1B}[4;34mdocs\(Self.reset)\(Self.dim) (https://x.dev/?a=1&b=2)\(Self.reset).\n\n"
                    + "\(Self.dim)│ \(Self.reset)let a = 1\n\(Self.dim)│ \(Self.reset)\n\(Self.dim)│ \(Self.reset)let b = 2\nDone."
            ], "\(messages.map(\.debugDescription))")
    }

    @Test func thinkingIsADimQuote() throws {
        var config = FormatterConfig()
        config.showThinking = true
        let run = RunFixture.run([RunFixture.thinking("Check a < b."), RunFixture.text("Fixed.")])
        let messages = try final(run, config: config)
        #expect(
            messages == [
                "\(Self.dim)▌ \(Self.reset)\(Self.dim)💭 \(Self.reset)\u{1B}[2;3mthinking\(Self.reset)\n\(Self.dim)▌ \(Self.reset)\(Self.dim)Check a < b.\(Self.reset)\n\nFixed."
            ],
            "\(messages.map(\.debugDescription))")
    }

    /// The agent's text, tool arguments and notices can hold escape sequences (a file read with
    /// colours, a prompt injection): none reaches the terminal as a control character.
    @Test func controlCharactersNeverReachTheTerminal() throws {
        let hostile = "red \u{1B}[31mALERT\u{1B}[0m, bell \u{07}, title \u{1B}]0;pwned\u{07}, CSI \u{9B}2J, back\rspace, nul \u{0}"
        let run = RunFixture.run([
            RunFixture.tools([RunFixture.call("bash", ["command": "printf '\u{1B}[2J'"])]),
            RunFixture.text(hostile + "\n\n```\n" + hostile + "\n```"),
            RunFixture.notice("error", hostile),
        ])
        let shown = try final(run).joined(separator: "\n")
        let plain = Self.plain(shown)
        #expect(!plain.unicodeScalars.contains { Dialect.isTerminalControl($0) && $0 != "\u{1B}" }, "\(plain.debugDescription)")
        #expect(!plain.contains("\u{1B}"), "only the formatter's own SGR sequences: \(plain.debugDescription)")
        #expect(plain.contains("red \u{FFFD}[31mALERT"), "\(plain.debugDescription)")
        let notice = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.notice", params: ["notice": "info", "text": .string(hostile), "dialect": Self.dialect])
        let noticeText = notice["text"]?.stringValue ?? ""
        #expect(!noticeText.unicodeScalars.contains("\u{1B}"), "\(noticeText.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(Dialect.ansi.escape("a\u{1B}b\tc\nd\u{85}") == "a\u{FFFD}b\tc\nd\u{FFFD}")
    }

    @Test func aQuestionIsANoticeOfItsOwn() throws {
        let result = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.notice", params: ["notice": "question", "text": "Pick a colour: 1 red · 2 green", "dialect": Self.dialect])
        #expect(result["text"]?.stringValue == "❓ Question: Pick a colour: 1 red · 2 green")
    }

    @Test func aLineWiderThanTheLimitIsCutAndMessagesPackLines() throws {
        let long = String(repeating: "abcdefghij", count: 25)
        let messages = try final(RunFixture.run([RunFixture.text(long + "\nshort\nend")]), limit: 100)
        #expect(messages == [String(long.prefix(100)), String(long.dropFirst(100).prefix(100)), String(long.suffix(50)) + "\nshort\nend"])
        for message in messages { #expect(ANSITerminal.visibleLength(message) <= 100) }
        // Where a space is near the end, the cut goes after it.
        let words = try final(RunFixture.run([RunFixture.text("aaaa bbbb cccc dddd eeee ffff gggg")]), limit: 20)
        #expect(words == ["aaaa bbbb cccc dddd ", "eeee ffff gggg"], "\(words)")
    }

    /// A terminal prints each finished line once: lines never change once returned, and at the
    /// end of the run they are the whole answer, as the final renders it.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func liveLinesAreStableAndAddUpToTheFinal(seed: UInt64) throws {
        let growing = GrowingRun(seed: seed, items: 8)
        let limit = 400
        var printed: [String] = []
        for (step, state) in growing.states.enumerated() {
            let (chunks, tail) = try live(state, limit: limit)
            guard chunks.count >= printed.count, Array(chunks.prefix(printed.count)) == printed else {
                Issue.record("seed \(seed) step \(step): a finished line changed or disappeared")
                return
            }
            for line in chunks { #expect(!line.contains("\n") && ANSITerminal.visibleLength(line) <= limit) }
            for line in tail.split(separator: "\n") { #expect(ANSITerminal.visibleLength(String(line)) <= limit) }
            printed = chunks
        }
        let last = try #require(growing.states.last)
        let (chunks, tail) = try live(last, limit: limit)
        #expect(tail.isEmpty, "a finished run has no tail: \(tail.debugDescription)")
        let whole = try final(last, limit: limit).joined(separator: "\n")
        let liveLines = chunks.joined(separator: "\n").trimmingBlankLines.split(separator: "\n", omittingEmptySubsequences: false)
        let finalLines = whole.trimmingBlankLines.split(separator: "\n", omittingEmptySubsequences: false)
        let differ = zip(liveLines, finalLines).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(
            differ == nil && liveLines.count == finalLines.count,
            "\(liveLines.count) live lines, \(finalLines.count) final; first difference at \(differ.map { "\($0.offset): \($0.element.0.debugDescription) / \($0.element.1.debugDescription)" } ?? "-")"
        )
    }
}

extension String {
    fileprivate var trimmingBlankLines: String {
        var lines = split(separator: "\n", omittingEmptySubsequences: false)[...]
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
