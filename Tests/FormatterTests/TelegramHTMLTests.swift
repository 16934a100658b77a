import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// `dialect: telegram-html`: runs and notices as Telegram HTML. Every message any test here gets
/// goes through `TelegramHTMLChecker` (tags, nesting, entities, visible length).
@Suite struct TelegramHTMLTests {
    static let dialect: JSONValue = "telegram-html"

    /// `format.final` in Telegram HTML, every message checked against `limit`.
    func final(
        _ run: JSONValue, limit: Int = 4096, maxChunks: Int? = nil, config: FormatterConfig = FormatterConfig()
    ) throws -> (messages: [String], files: [JSONValue]) {
        var params: JSONValue = ["run": run, "limit": JSONValue(limit), "dialect": Self.dialect]
        if let maxChunks { params["maxChunks"] = JSONValue(maxChunks) }
        let result = try RelayFormatter(config: config).respond(to: "format.final", params: params)
        let messages = (result["messages"]?.arrayValue ?? []).compactMap(\.stringValue)
        for message in messages { try TelegramHTMLChecker.check(message, limit: limit) }
        return (messages, result["files"]?.arrayValue ?? [])
    }

    func notice(_ kind: String, _ text: String) throws -> String {
        let result = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.notice", params: ["notice": .string(kind), "text": .string(text), "dialect": Self.dialect])
        let html = result["text"]?.stringValue ?? ""
        try TelegramHTMLChecker.check(html)
        return html
    }

    /// The visible text of numbered chunks, labels taken off, without any whitespace: what must
    /// survive a split whole and in order.
    static func visibleContent(_ chunks: [String]) throws -> String {
        var all = ""
        for (index, chunk) in chunks.enumerated() {
            var text = try TelegramHTMLChecker.check(chunk, limit: Int.max)
            let label = "[\(index + 1)/\(chunks.count)]"
            if chunks.count > 1 {
                guard text.hasPrefix(label) else { throw TelegramHTMLChecker.Violation("chunk \(index + 1) lacks its label") }
                text = String(text.dropFirst(label.count))
            }
            all += text
        }
        return String(all.filter { !$0.isWhitespace })
    }

    @Test func escapesModelTextToolArgumentsPathsAndNotices() throws {
        let run = RunFixture.run([
            RunFixture.text("If a < b && c > d, use <div> & \"quotes\"."),
            RunFixture.tools([
                RunFixture.call("bash", ["command": "grep '<T>' a&b.txt"]),
                RunFixture.call("read", ["path": "src/<gen>/a&b.swift"]),
                RunFixture.call(
                    "edit", ["path": "x<y>.swift"], isError: false,
                    details: ["diff": "@@ -1,1 +1,1 @@\n-if a<b {\n+if a<=b && ok {"]),
            ]),
        ])
        let messages = try final(run).messages
        #expect(
            messages == [
                "If a &lt; b &amp;&amp; c &gt; d, use &lt;div&gt; &amp; \"quotes\".\n\n"
                    + "🔧 <code>$ grep '&lt;T&gt;' a&amp;b.txt</code>\n🔧 read <code>src/&lt;gen&gt;/a&amp;b.swift</code>\n"
                    + "🔧 edit <code>x&lt;y&gt;.swift</code> (+1 −1)"
            ])
    }

    @Test func codeBlocksWithAndWithoutALanguage() throws {
        let run = RunFixture.run([RunFixture.text("Fix:\n\n```swift\nif a < b {\n    print(\"&\")\n}\n```\n\n```\nplain <raw>\n```\nDone.")])
        #expect(
            try final(run).messages == [
                "Fix:\n\n<pre><code class=\"language-swift\">if a &lt; b {\n    print(\"&amp;\")\n}</code></pre>\n\n<pre>plain &lt;raw&gt;</pre>\nDone."
            ])
        // An odd info string names no language: it cannot break out of the class attribute, nor
        // give the web page's code a class of the page's own (a form feed splits a class list).
        let odd = RunFixture.run([RunFixture.text("```c\"x<y\ncode\n```")])
        #expect(try final(odd).messages == ["<pre>code</pre>"])
        let classes = RunFixture.run([RunFixture.text("```py\u{0C}waiting note\ncode\n```")])
        #expect(try final(classes).messages == ["<pre>code</pre>"])
        let sharp = RunFixture.run([RunFixture.text("```c#\ncode\n```")])
        #expect(try final(sharp).messages == ["<pre><code class=\"language-c#\">code</code></pre>"])
    }

    @Test func tablesArePreBlocksAlignedAsInMarkdown() throws {
        let table = "| name | 数量 |\n|:--|--:|\n| apple & pear | 3 |\n| <fig> | 12 |"
        let run = RunFixture.run([RunFixture.text("Stock:\n\n" + table)])
        #expect(
            try final(run).messages == [
                "Stock:\n\n<pre>name         | 数量\n-------------+-----\napple &amp; pear |    3\n&lt;fig&gt;        |   12</pre>"
            ])
    }

    @Test func toolSummariesKeepTheirIconsAndMarkdownBecomesTags() throws {
        let run = RunFixture.run([
            RunFixture.tools([
                RunFixture.call("bash", ["command": "swift test"], isError: true, output: "Command exited with code 1"),
                RunFixture.call("bash", ["command": "echo `date`"]),
                RunFixture.call("mcp__github__search", ["q": "is:open"]),
                RunFixture.call("ls", ["path": "."], done: false),
            ]),
            RunFixture.text(
                "# Result\n\n**Bold**, *italic*, _also_, snake_case_name, 2 * 3 * 4, `a<b`, [docs](https://x.dev/?a=1&b=\"2\")"
                    + " and <https://swift.org>.\n\n> quoted *line*\n> second\n\n- item one\n- item two\n1. first\n---\n~~gone~~"),
        ])
        #expect(
            try final(run).messages == [
                "❌ <code>$ swift test</code> (exit 1)\n🔧 <code>$ echo `date`</code>\n🔧 mcp__github__search <code>{\"q\":\"is:open\"}</code>\n"
                    + "⏳ ls <code>.</code>\n\n<b>Result</b>\n\n<b>Bold</b>, <i>italic</i>, <i>also</i>, snake_case_name, 2 * 3 * 4, "
                    + "<code>a&lt;b</code>, <a href=\"https://x.dev/?a=1&amp;b=&quot;2&quot;\">docs</a> and "
                    + "<a href=\"https://swift.org\">https://swift.org</a>.\n\n<blockquote>quoted <i>line</i>\nsecond</blockquote>\n\n"
                    + "- item one\n- item two\n1. first\n---\n~~gone~~"
            ])
    }

    /// A code block continued in the next message keeps its first line's indent: Python, YAML
    /// and makefiles copied from the chat mean it.
    @Test func aContinuedCodeBlockKeepsItsIndent() {
        let doc = "```python\ndef f():\n" + (1...400).map { "    v\($0) = \($0)" }.joined(separator: "\n") + "\n```"
        let chunks = TelegramHTML().split(doc, limit: 1000, numbered: true)
        #expect(chunks.count > 2)
        for chunk in chunks.dropFirst() {
            #expect(chunk.contains("language-python\">    v"), "\(chunk.prefix(80))")
        }
        let lines = chunks.joined(separator: "\n").split(separator: "\n").filter { $0.contains(" = ") }
        #expect(lines.count == 400 && lines.allSatisfy { $0.contains("    v") }, "every line, indented once")
    }

    /// A link whose text names one site and whose address is another (`[https://bank.example]
    /// (https://evil.example)`), which model text or a page the agent read can write: Telegram
    /// shows only the text, so the address is shown beside it. File names and words stay links.
    @Test func aLinkWhoseTextNamesAnotherSiteShowsWhereItGoes() throws {
        let run = RunFixture.run([
            RunFixture.text(
                "[https://bank.example/login](https://evil.example/x), [paypal.com](http://pay.evil.io), "
                    + "[www.github.com](https://github.com/a), [README.md](https://git.example/r/README.md), [docs](https://d.example)")
        ])
        let message = try #require(try final(run).messages.first)
        #expect(message.contains("https://bank.example/login (<a href=\"https://evil.example/x\">https://evil.example/x</a>)"), "\(message)")
        #expect(message.contains("paypal.com (<a href=\"http://pay.evil.io\">http://pay.evil.io</a>)"), "\(message)")
        #expect(message.contains("<a href=\"https://github.com/a\">www.github.com</a>"), "\(message)")
        #expect(message.contains("<a href=\"https://git.example/r/README.md\">README.md</a>"), "\(message)")
        #expect(message.contains("<a href=\"https://d.example\">docs</a>"), "\(message)")
    }

    /// The site a link's text names may stand among other words, in brackets or emphasis, or
    /// under a country's ending: each hides the target as well as a bare address does.
    @Test func aSiteNamedAnywhereInALinksTextShowsWhereItGoes() throws {
        let texts = [
            "Log in at https://bank.example", "(https://bank.example)", "<bank.com>", "bank.com,", "paypal.ca", "your bank: post.ch",
        ]
        let run = RunFixture.run([RunFixture.text(texts.map { "[\($0)](https://evil.example/x)" }.joined(separator: " and "))])
        let message = try #require(try final(run).messages.first)
        #expect(
            message.components(separatedBy: "(<a href=\"https://evil.example/x\">https://evil.example/x</a>)").count == texts.count + 1,
            "\(message)")
        let same = RunFixture.run([RunFixture.text("[see github.com for it](https://github.com/a) [notes in README.md](https://git.example/r)")])
        let plain = try #require(try final(same).messages.first)
        #expect(plain.contains("<a href=\"https://github.com/a\">see github.com for it</a>"), "\(plain)")
        #expect(plain.contains("<a href=\"https://git.example/r\">notes in README.md</a>"), "\(plain)")
    }

    /// Telegram's own `tg://` links mention a user (`tg://user?id=`, silently behind an empty
    /// label) or open its add-proxy and join dialogs: model text, which a page the agent read can
    /// steer, makes links to the web only.
    @Test func modelTextLinksOnlyToTheWeb() throws {
        let run = RunFixture.run([
            RunFixture.text(
                "[\u{200B}](tg://user?id=42), [settings](tg://proxy?server=p.example&port=443) and <tg://join?invite=x> [ok](https://ok.example)")
        ])
        let message = try #require(try final(run).messages.first)
        #expect(!message.contains("tg://user?id=42\""), "\(message)")
        #expect(!message.contains("href=\"tg:"), "\(message)")
        #expect(message.contains("<a href=\"https://ok.example\">ok</a>"), "\(message)")
    }

    @Test func thinkingIsAQuote() throws {
        var config = FormatterConfig()
        config.showThinking = true
        let run = RunFixture.run([RunFixture.thinking("Check a < b.\n\nThen tests."), RunFixture.text("Fixed.")])
        #expect(try final(run, config: config).messages == ["<blockquote>💭 <i>thinking</i>\nCheck a &lt; b.\n\nThen tests.</blockquote>\n\nFixed."])
    }

    @Test func aSplitInsideACodeBlockClosesAndReopensIt() throws {
        let code = (1...40).map { "let value\($0) = compute(\($0)) < limit && ok // line \($0)" }.joined(separator: "\n")
        let run = RunFixture.run([RunFixture.text("Here:\n\n```swift\n" + code + "\n```\n\nThat is all.")])
        let messages = try final(run, limit: 600, maxChunks: 0).messages
        #expect(messages.count > 3)
        for (index, message) in messages.enumerated() {
            #expect(try TelegramHTMLChecker.check(message, limit: 600).unicodeScalars.count <= 600)
            if index > 0 { #expect(message.hasPrefix("[\(index + 1)/\(messages.count)]\n<pre><code class=\"language-swift\">let value")) }
            if index < messages.count - 1 { #expect(message.hasSuffix("</code></pre>")) }
        }
        // Measured visibly: the HTML of a full chunk is longer than the limit, its text is not.
        #expect(messages.contains { $0.utf16.count > 600 })
        #expect(try Self.visibleContent(messages) == ("Here:" + code + "Thatisall.").filter { !$0.isWhitespace })
    }

    @Test func aSplitInsideBoldClosesAndReopensIt() throws {
        let sentence = (1...60).map { "word\($0)" }.joined(separator: " ")
        let run = RunFixture.run([RunFixture.text("Intro. **" + sentence + "** outro.")])
        let messages = try final(run, limit: 150, maxChunks: 0).messages
        #expect(messages.count > 2)
        for (index, message) in messages.enumerated() {
            try TelegramHTMLChecker.check(message, limit: 150)
            // The chunks in between are bold all through; the last may start after the bold ends.
            if index > 0, index < messages.count - 1 { #expect(message.hasPrefix("[\(index + 1)/\(messages.count)] <b>word")) }
            if index < messages.count - 2 { #expect(message.hasSuffix("</b>")) }
        }
        #expect(try Self.visibleContent(messages) == ("Intro." + sentence + "outro.").filter { !$0.isWhitespace })
    }

    @Test func entitiesAreNeverCutAndCountAsOne() throws {
        let text = String(repeating: "<&>", count: 400) + " " + String(repeating: "a&b<c> ", count: 200)
        for limit in [100, 101, 137, 4096] {
            let messages = try final(RunFixture.run([RunFixture.text(text)]), limit: limit, maxChunks: 0).messages
            #expect(try Self.visibleContent(messages) == text.filter { !$0.isWhitespace })
            if limit == 4096 {
                // 2,600 visible characters: one message, though its HTML is about three times longer.
                #expect(messages.count == 1)
                #expect(messages[0].utf16.count > 4096)
            }
        }
    }

    @Test func aLongAnswerIsAPreviewAndAMarkdownFile() throws {
        let answer = (1...80).map { "**Paragraph \($0):** a < b & " + String(repeating: "lorem ipsum ", count: 12) }.joined(separator: "\n\n")
        let run = RunFixture.run(
            [
                RunFixture.text("First I looked around."),
                RunFixture.tools([RunFixture.call("ls", ["path": "."])]),
                RunFixture.text("| a | b |\n|---|---|\n| 1 | 2 |\n\n" + answer),
            ],
            stopReason: "error", errorMessage: "overloaded <529>", sessionName: "api server", runID: "r/7")
        let (messages, files) = try final(run, limit: 2000)
        #expect(messages.count == 1)
        let preview = messages[0]
        #expect(preview.hasPrefix("<pre>a | b\n--+--\n1 | 2</pre>\n\n<b>Paragraph 1:</b> a &lt; b &amp; lorem"))
        #expect(preview.contains("lorem ipsum\n…\n\n⚠️ Error: overloaded &lt;529&gt;\n\n📎 The full answer ("))
        #expect(preview.hasSuffix(" messages long) is attached as <code>api-server-r-7.md</code>."))
        #expect(files.count == 1)
        #expect(files[0]["filename"]?.stringValue == "api-server-r-7.md")
        let file = files[0]["text"]?.stringValue ?? ""
        // The file stays markdown: the table, the tool line, the text unescaped.
        #expect(file.contains("| a | b |"))
        #expect(file.contains("🔧 ls `.`"))
        #expect(file.contains("**Paragraph 1:** a < b & lorem"))
        #expect(file.contains("Paragraph 80:"))
    }

    @Test func anEmptyOrInvisibleAnswerSaysSo() throws {
        #expect(try final(RunFixture.run([])).messages == ["(no output)"])
        #expect(try final(RunFixture.run([RunFixture.text("```\n```")])).messages == ["(no output)"])
    }

    @Test func noticesAreEscaped() throws {
        #expect(try notice("error", "expected <T> & got `nil`") == "⚠️ Error: expected &lt;T&gt; &amp; got <code>nil</code>")
        #expect(try notice("aborted", "") == "⏹ Aborted")
        #expect(try notice("compaction", "45k → 12k tokens") == "🗜 Compaction: 45k → 12k tokens")
        // Slack's mrkdwn escapes the same three characters (SlackMrkdwnTests).
        let slack = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.notice", params: ["notice": "error", "text": "a < b", "dialect": "slack-mrkdwn"])
        #expect(slack["text"] == "⚠️ Error: a &lt; b")
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func liveChunksAreCheckedStableAndAddUpToTheFinal(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let limit = rng.pick([150, 333, 500])
        var config = FormatterConfig()
        config.showThinking = rng.chance(0.5)
        let growing = GrowingRun(seed: seed, items: rng.int(4...10))
        var posted: [String] = []
        for (step, state) in growing.states.enumerated() {
            let result = try RelayFormatter(config: config).respond(
                to: "format.live", params: ["run": state, "limit": JSONValue(limit), "dialect": Self.dialect])
            let chunks = (result["chunks"]?.arrayValue ?? []).compactMap(\.stringValue)
            let tail = result["tail"]?.stringValue ?? ""
            guard chunks.count >= posted.count, Array(chunks.prefix(posted.count)) == posted else {
                Issue.record("seed \(seed) step \(step): a finished chunk changed or disappeared")
                return
            }
            for chunk in chunks { try TelegramHTMLChecker.check(chunk, limit: limit) }
            if !tail.isEmpty { try TelegramHTMLChecker.check(tail, limit: limit) }
            posted = chunks
        }
        #expect(posted.count > 0)
        let last = try #require(growing.states.last)
        let result = try RelayFormatter(config: config).respond(
            to: "format.live", params: ["run": last, "limit": JSONValue(limit), "dialect": Self.dialect])
        let whole = (result["chunks"]?.arrayValue ?? []).compactMap(\.stringValue) + [result["tail"]?.stringValue ?? ""]
        let messages = try final(last, limit: limit, maxChunks: 0, config: config).messages
        let live = try whole.filter { !$0.isEmpty }.map { try TelegramHTMLChecker.check($0, limit: limit) }.joined()
        #expect(live.filter { !$0.isWhitespace } == (try Self.visibleContent(messages)))
    }

    @Test func randomMarkdownSplitsIntoValidMessagesThatLoseNothing() throws {
        for seed in UInt64(1)...300 {
            var rng = SeededGenerator(seed: seed &* 0x51ED)
            let doc = GeneratedMarkdown(seed: seed, targetLength: rng.int(1...3000))
            let limit = rng.pick([100, 101, 157, 333, 800])
            let markup = TelegramHTML()
            let whole = try TelegramHTMLChecker.check(markup.rendered(doc.text), limit: Int.max)
            do {
                let chunks = markup.split(doc.text, limit: limit, numbered: true)
                for chunk in chunks { try TelegramHTMLChecker.check(chunk, limit: limit) }
                #expect(try Self.visibleContent(chunks) == whole.filter { !$0.isWhitespace }, "seed \(seed)")
            } catch {
                Issue.record("seed \(seed), limit \(limit): \(error)")
                return
            }
        }
    }
}
