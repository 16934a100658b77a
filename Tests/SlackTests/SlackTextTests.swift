import PiRelaySDK
import Testing

@testable import SlackPlugin

@Suite struct SlackTextTests {
    @Test func plainTextEscapesExactlyThreeCharacters() {
        #expect(SlackText.escaped("a < b > c & \"d\" *e*") == "a &lt; b &gt; c &amp; \"d\" *e*")
    }

    /// A gate's command must read as it will run: mrkdwn would eat its stars as bold, so text
    /// with mrkdwn marks goes in a code block; and Slack parses no `@channel` in a question.
    @Test func aQuestionsTextReadsAsWritten() {
        #expect(SlackText.verbatim("rm -rf *.log ~/tmp/*") == "```rm -rf *.log ~/tmp/*```")
        #expect(SlackText.verbatim("a < b") == "a &lt; b")
        #expect(SlackText.verbatim("x ``` y_") == "```x `\u{200B}`` y_```")
        #expect(Blocks.section("@channel deploy")["text"]?["verbatim"] == true)
        #expect(Blocks.closed("q", note: "@here")[1]?["elements"]?[0]?["verbatim"] == true)
    }

    @Test func longTextIsSplitWithinTheLimitNeverInsideAnEntity() {
        let text = String(repeating: "x", count: 2997) + "&amp;" + String(repeating: "y", count: 100)
        let pieces = SlackText.split(text, limit: 3000)
        #expect(pieces.allSatisfy { $0.count <= 3000 })
        #expect(pieces.joined() == text)
        #expect(pieces[1].hasPrefix("&amp;"))
    }

    /// Plain text is escaped, then split: split first, a piece of 2,800 characters holding
    /// `2>&1` and `->` grew past a section's 3,000 once escaped, and the section cut its end.
    @Test func plainTextIsSplitAfterItIsEscaped() {
        let plain = String(repeating: "run 2>&1 -> out\n", count: 175)
        let pieces = SlackText.chunks(plain)
        #expect(pieces.allSatisfy { $0.count <= SlackText.limit }, "\(pieces.map(\.count))")
        #expect(pieces.joined() == SlackText.escaped(plain), "nothing lost")
        #expect(Blocks.section(pieces[0])["text"]?["text"]?.stringValue == pieces[0], "a section shows the whole first piece")
    }

    /// Slack's limits are in characters, counted here in UTF-16 units (never fewer than code
    /// points): `क्षि` is one `Character` of four code points, 🇳🇵 one of four UTF-16 units.
    @Test func piecesAreMeasuredInUTF16UnitsNotCharacters() {
        for letter in ["क्षि ", "🇳🇵 "] {
            let text = String(repeating: letter, count: 1500)
            let pieces = SlackText.split(text, limit: 3000)
            #expect(pieces.allSatisfy { $0.utf16.count <= 3000 }, "\(pieces.map(\.utf16.count))")
            #expect(pieces.joined() == text && pieces.allSatisfy { $0.hasSuffix(" ") }, "cut whole, after a space")
        }
        let note = String(repeating: "क्षि", count: 2000)
        let closed = Blocks.closed("Pick", note: note)
        #expect(closed[1]?["elements"]?[0]?["text"]?.stringValue?.utf16.count ?? .max <= 3000)
    }

    @Test func questionsWithManyOptionsGetASelectAndFewGetButtons() throws {
        let few = QuestionPost(id: "q1", sessionID: "s1", method: "select", title: "Pick", options: ["a", "b"])
        let fewBlocks = Blocks.question("Pick", few)
        let fewElements = fewBlocks.arrayValue?[1]["elements"]?.arrayValue ?? []
        #expect(fewElements.map { $0["type"]?.stringValue } == ["button", "button", "button"])
        let many = QuestionPost(id: "q1", sessionID: "s1", method: "select", title: "Pick", options: (1...8).map { "option \($0)" })
        let manyElements = Blocks.question("Pick", many).arrayValue?[1]["elements"]?.arrayValue ?? []
        #expect(manyElements.first?["type"] == "static_select")
        #expect(manyElements.first?["options"]?.arrayValue?.count == 8)
        let ids = manyElements.compactMap { $0["action_id"]?.stringValue }
        #expect(Set(ids).count == ids.count, "action ids unique in the message")
    }

    @Test func buttonLabelsStayWithin75Characters() {
        #expect(Blocks.label(String(repeating: "w", count: 200)).count == 75)
    }

    /// slack-api.md §6: a button's or an option's text over 75 is refused with the whole
    /// message (`invalid_blocks`), and the question never shows. A label the model wrote can
    /// hold characters of several code points (a decomposed "é", a flag): 70 of them are far
    /// over 75 as Slack counts.
    @Test func aLabelOfManyCodePointsStaysWithinSlacksCount() {
        for label in [String(repeating: "e\u{301}", count: 70), String(repeating: "🇫🇷", count: 40)] {
            let shown = Blocks.label(label)
            #expect(shown.unicodeScalars.count <= 75 && shown.utf16.count <= 75, "\(shown.unicodeScalars.count)")
            #expect(shown.hasSuffix("…"))
        }
    }
}
