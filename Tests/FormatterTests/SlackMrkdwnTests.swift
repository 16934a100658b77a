import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// `dialect: slack-mrkdwn`: runs and notices as Slack's mrkdwn (spec slack-api.md §6).
@Suite struct SlackMrkdwnTests {
    func final(_ run: JSONValue, limit: Int = 3000, maxChunks: Int? = nil) throws -> (messages: [String], files: [JSONValue]) {
        var params: JSONValue = ["run": run, "limit": JSONValue(limit), "dialect": "slack-mrkdwn"]
        if let maxChunks { params["maxChunks"] = JSONValue(maxChunks) }
        let result = try RelayFormatter(config: FormatterConfig()).respond(to: "format.final", params: params)
        let messages = (result["messages"]?.arrayValue ?? []).compactMap(\.stringValue)
        for message in messages {
            #expect(message.count <= limit, "\(message.count) characters")
            #expect(!Self.hasUnescapedMarkup(message), "unescaped & < > outside links: \(message)")
            #expect(message.components(separatedBy: "```").count % 2 == 1, "every fence closed in its message: \(message)")
        }
        return (messages, result["files"]?.arrayValue ?? [])
    }

    /// `<` only opens a link, `&` only an entity.
    static func hasUnescapedMarkup(_ text: String) -> Bool {
        // Slack reads code points: a combining mark after `<` or `;` must not hide it from the
        // searches below, which compare characters.
        let text = String(String.UnicodeScalarView(text.unicodeScalars.filter { !$0.properties.isGraphemeExtend }))
        let withoutLinks = text.replacing(/<https?:\/\/[^<>|]*\|[^<>]*>/, with: "").replacing(#/(^|\n)> /#, with: "\n")
        if withoutLinks.contains("<") || withoutLinks.contains(">") { return true }
        return withoutLinks.replacing("&amp;", with: "").replacing("&lt;", with: "").replacing("&gt;", with: "").contains("&")
    }

    @Test func markdownBecomesMrkdwn() throws {
        let run = RunFixture.run([
            RunFixture.text(
                "## Plan\nUse **bold**, *it*, `a<b>` and [the docs](https://example.com/a?x=1&y=2).\n\n```swift\nlet x = a < b && c\n```\n> quoted & kept\n"
            )
        ])
        let text = try final(run).messages.joined(separator: "\n")
        #expect(text.contains("*Plan*"), "\(text)")
        #expect(text.contains("*bold*") && text.contains("_it_"), "\(text)")
        #expect(text.contains("`a&lt;b&gt;`"), "\(text)")
        #expect(text.contains("<https://example.com/a?x=1&amp;y=2|the docs>"), "\(text)")
        #expect(text.contains("```\nlet x = a &lt; b &amp;&amp; c\n```"), "a code block without its language: \(text)")
        #expect(!text.contains("```swift"), "\(text)")
        #expect(text.contains("> quoted &amp; kept"), "\(text)")
    }

    /// A live view's settled chunks stay within the limit however many characters Slack's
    /// escapes add (`<` is `&lt;` to Slack's count): HTML or C++ with `<<` came out at about 4000.
    @Test func settledChunksOfEscapedCodeFitTheLimit() {
        for line in ["<<<<<<<<<<", "<tr><td>1</td><td>2</td></tr>", "a && b && c &&", String(repeating: "<\u{301}", count: 10)] {
            let document = "```\n" + String(repeating: line + "\n", count: 400) + "```\n"
            let view = SlackMrkdwn().live(settled: document, current: document + "x ", limit: 3000)
            #expect(!view.chunks.isEmpty && view.chunks.allSatisfy { $0.utf16.count <= 3000 }, "\(line): \(view.chunks.map(\.utf16.count))")
        }
    }

    /// Settled chunks are written once and never measured after: their cut must count what
    /// mrkdwn adds to each quoted line (`> `), each style's markers, and emoji's second UTF-16
    /// unit. A run of quoted `` `x` `` lines came out at 5,400 characters: Slack refused the edit
    /// (`msg_too_long`) and the live view froze for the rest of the run.
    @Test func settledChunksOfQuotedStyledLinesFitTheLimit() {
        for line in ["> `x`", "> *a*", "> _i_ *b* `c`", "**b** _i_ `c`", "😀😀😀😀😀😀😀😀", "> 😀 *😀*"] {
            let document = String(repeating: line + "\n", count: 1000)
            let view = SlackMrkdwn().live(settled: document, current: document + "x ", limit: 3000)
            #expect(!view.chunks.isEmpty && view.chunks.allSatisfy { $0.utf16.count <= 3000 }, "\(line): \(view.chunks.map(\.utf16.count))")
        }
    }

    /// Slack counts characters, here in UTF-16 units (never fewer than code points): a
    /// Devanagari letter of four code points is one `Character`, and a view cut by `Character`s
    /// came out at 7,000 and was refused (`msg_too_long`) at every edit.
    @Test func viewsAndFinalsOfDevanagariFitTheLimit() {
        let document = String(repeating: "क्षि ", count: 1500)
        let view = SlackMrkdwn().live(settled: "", current: document, limit: 3000)
        #expect(view.tail.utf16.count <= 3000, "\(view.tail.utf16.count)")
        #expect(view.chunks.allSatisfy { $0.utf16.count <= 3000 }, "\(view.chunks.map(\.utf16.count))")
        let chunks = SlackMrkdwn().split(document, limit: 3000, numbered: false)
        #expect(chunks.allSatisfy { $0.utf16.count <= 3000 }, "\(chunks.map(\.utf16.count))")
    }

    /// A NUL (JSON's `\u0000`) is a character like any other: it reaches the message as it came.
    /// A `<` followed by a combining mark is one character to Swift; Slack still reads the `<`
    /// as the start of a link or a mention.
    @Test func aCombiningMarkDoesNotHideABracket() throws {
        let (messages, _) = try final(RunFixture.run([RunFixture.text("hi <\u{301}!channel> & <\u{301}https://x.example|y>")]))
        let bytes = Array(messages.joined().utf8)
        #expect(!bytes.indices.contains { bytes[$0...].starts(with: Array("<\u{301}".utf8)) }, "\(messages)")
    }

    @Test func aNULInTheAnswerIsKept() throws {
        let (messages, _) = try final(RunFixture.run([RunFixture.text("before \u{0} after *and* é\u{0}")]))
        #expect(messages == ["before \u{0} after _and_ é\u{0}"])
    }

    @Test func tablesAreCodeBlocks() throws {
        let run = RunFixture.run([RunFixture.text("| a | b |\n|---|---|\n| 1 | 2 |\n")])
        let text = try final(run).messages.joined()
        #expect(text.hasPrefix("```\n"), "a code block: \(text)")
        #expect(!text.contains("|---|"), "the table is drawn, not left as markdown: \(text)")
    }

    @Test func longAnswersAreSplitWithinTheLimitFencesClosed() throws {
        let code = (1...400).map { "let value\($0) = a < b && c" }.joined(separator: "\n")
        let run = RunFixture.run([RunFixture.text("Intro & more.\n\n```\n" + code + "\n```\nDone.")])
        let messages = try final(run, limit: 3000, maxChunks: 50).messages
        #expect(messages.count > 3)
        #expect(messages.allSatisfy { $0.count <= 3000 })
    }

    @Test func noticesAreEscaped() throws {
        let result = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.notice", params: ["notice": "error", "text": "expected <T> & got `nil`", "dialect": "slack-mrkdwn"])
        #expect(result["text"] == "⚠️ Error: expected &lt;T&gt; &amp; got `nil`")
    }

    /// A code block continued in the next message keeps its first line's indent.
    @Test func aContinuedCodeBlockKeepsItsIndent() {
        let doc = "```\nsteps:\n" + (1...400).map { "    - run: step \($0)" }.joined(separator: "\n") + "\n```"
        let chunks = SlackMrkdwn().split(doc, limit: 1000, numbered: true)
        #expect(chunks.count > 2)
        for chunk in chunks.dropFirst() {
            #expect(chunk.contains("```\n    - run"), "\(chunk.prefix(80))")
        }
    }

    /// Slack counts a link's `<address|text>` whole: a list of sources with long addresses is cut
    /// by what is written, not by the text shown.
    @Test func linksAreCountedWithTheirAddresses() {
        let doc = (1...15).map { _ in "[a](https://example.com/" + String(repeating: "x", count: 290) + ")" }.joined(separator: "\n")
        let chunks = SlackMrkdwn().split(doc, limit: 3000, numbered: true)
        #expect(chunks.count > 1)
        #expect(chunks.allSatisfy { $0.count <= 3000 }, "\(chunks.map { $0.count })")
        #expect(chunks.joined().components(separatedBy: "<https://example.com/").count - 1 == 15, "every link, once")
    }
}
