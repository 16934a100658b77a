import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// `dialect: html`, the web dashboard's: model output, tool output, file names and notices as a
/// small escaped tag set. Whatever they hold (`<script>`, `<img onerror>`, `javascript:` links),
/// nothing becomes markup a browser would run; it is shown as text. Every message is read by
/// `WebHTMLChecker`.
@Suite struct WebHTMLTests {
    static let dialect: JSONValue = "html"

    /// What an agent (or a file it read) may say to a web page.
    static let hostile = [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(2)>",
        "[click me](javascript:alert(3))",
        "<javascript:alert(4)>",
        "\"><svg onload=alert(5)>",
        "<a href=\"javascript:alert(6)\">x</a>",
    ]

    func final(_ run: JSONValue) throws -> [String] {
        let result = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.final", params: ["run": run, "limit": 100_000, "dialect": Self.dialect])
        let messages = (result["messages"]?.arrayValue ?? []).compactMap(\.stringValue)
        for message in messages { try WebHTMLChecker.check(message) }
        return messages
    }

    @Test func hostileModelTextIsShownNeverRun() throws {
        let run = RunFixture.run([RunFixture.text(Self.hostile.joined(separator: "\n\n"))])
        let messages = try final(run)
        let visible = try messages.map { try WebHTMLChecker.check($0) }.joined(separator: "\n")
        for attack in Self.hostile { #expect(visible.contains(attack), "shown as text: \(attack)") }
        // In the text, `href="javascript:` is harmless (its `<` is escaped); as a tag it must not be.
        #expect(!messages.joined().contains("_blank\" href=\"javascript"))
    }

    /// A quote or a bracket followed by a combining mark is one character to Swift and two code
    /// points to an HTML parser, which reads the quote: it is escaped all the same, in a link's
    /// address and in text.
    @Test func aCombiningMarkDoesNotHideAQuoteOrABracket() throws {
        let run = RunFixture.run([RunFixture.text("[x](https://a.example/\"\u{301}/onclick=alert(1)//) and <\u{301}img src=x onerror=alert(2)>")])
        let html = Array(try final(run).joined().utf8)
        func has(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return html.indices.contains { html[$0...].starts(with: bytes) }
        }
        #expect(!has("\"\u{301}") && has("&quot;\u{301}"), "\(String(decoding: html, as: UTF8.self))")
        #expect(!has("<\u{301}") && has("&lt;\u{301}img"))
    }

    @Test func hostileToolOutputFileNamesAndFencesAreEscaped() throws {
        let run = RunFixture.run([
            RunFixture.tools([
                RunFixture.call("bash", ["command": "cat '<script>alert(1)</script>'"], output: "<img src=x onerror=alert(2)>"),
                RunFixture.call("read", ["path": "docs/\"><svg onload=alert(5)>.md"]),
                RunFixture.call(
                    "edit", ["path": "<script>.swift"], details: ["diff": "@@ -1,1 +1,1 @@\n-<b>old</b>\n+<img src=x onerror=alert(7)>"]),
            ]),
            RunFixture.text("```\"><script>alert(8)</script>\nprint(1)\n```\nDone: see <https://example.com/a?b=<c>>."),
        ])
        let messages = try final(run)
        let html = messages.joined()
        #expect(!html.contains("<script"), "\(html)")
        #expect(!html.contains("<img"), "\(html)")
        #expect(!html.contains("<svg"), "\(html)")
        let visible = try messages.map { try WebHTMLChecker.check($0) }.joined()
        #expect(visible.contains("<script>"), "the file name is shown: \(visible)")
    }

    @Test func linksOpenInANewTabWithoutOpenerOrReferrer() throws {
        let messages = try final(RunFixture.run([RunFixture.text("See [the docs](https://example.com/docs) and <https://example.org>.")]))
        let html = messages.joined()
        #expect(html.contains(WebHTMLChecker.linkOpening + "https://example.com/docs\">the docs</a>"), "\(html)")
        #expect(html.contains(WebHTMLChecker.linkOpening + "https://example.org"), "\(html)")
    }

    @Test func liveViewsAndNoticesAreTheSameSafeSet() throws {
        let run = RunFixture.run([RunFixture.text(Self.hostile.joined(separator: "\n") + "\n**bold** and `code`")], done: false)
        let live = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.live", params: ["run": run, "limit": 100_000, "dialect": Self.dialect])
        let shown = (live["chunks"]?.arrayValue ?? []).compactMap(\.stringValue) + [live["tail"]?.stringValue ?? ""]
        for message in shown where !message.isEmpty { try WebHTMLChecker.check(message) }
        #expect(shown.joined().contains("<b>bold</b>"))
        #expect(shown.joined().contains("&lt;script&gt;"))

        let notice = try RelayFormatter(config: FormatterConfig()).respond(
            to: "format.notice", params: ["notice": "error", "text": "<img src=x onerror=alert(9)>", "dialect": Self.dialect])
        let text = try #require(notice["text"]?.stringValue)
        #expect(try WebHTMLChecker.check(text).contains("<img src=x onerror=alert(9)>"))
    }

    @Test func plainTextIsEscapedForTextAndAttributesAlike() {
        #expect(Dialect.html.escape("<a href='x' title=\"y\">&</a>") == "&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;&lt;/a&gt;")
        #expect(Dialect(wireName: "html") == .html)
    }
}
