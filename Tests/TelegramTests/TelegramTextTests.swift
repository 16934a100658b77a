import PiRelaySDK
import Testing

@testable import TelegramPlugin

/// Plain text into Telegram HTML: escaped, split within the limit in code points.
@Suite struct TelegramTextTests {
    @Test func escapesTheThreeCharacters() {
        #expect(TelegramText.html("a<b && c>d") == "a&lt;b &amp;&amp; c&gt;d")
        #expect(TelegramText.plain("<b>x</b> &lt;y&gt; &amp;") == "x <y> &")
    }

    @Test func splitsByCodePointsAtLineBreaks() {
        let line = String(repeating: "🙂", count: 30) + "\n"
        let text = String(repeating: line, count: 10)
        let chunks = TelegramText.htmlChunks(text, limit: 100)
        #expect(chunks.allSatisfy { TelegramText.visibleLength($0) <= 100 })
        #expect(chunks.joined() == text)
        #expect(chunks.dropLast().allSatisfy { $0.hasSuffix("\n") }, "cut at line ends")
    }

    /// Without a space or a line break to cut at, the cut falls between two characters: a family
    /// emoji (five code points) or a letter with its accent is not shown in two broken halves.
    @Test func aCutWithoutSpacesKeepsCharactersWhole() {
        for unit in ["👨‍👩‍👧", "e\u{301}", "🇫🇷"] {
            let text = String(repeating: unit, count: 60)
            let chunks = TelegramText.htmlChunks(text, limit: 101)
            #expect(chunks.allSatisfy { TelegramText.visibleLength($0) <= 101 })
            #expect(chunks.joined() == text)
            #expect(
                chunks.allSatisfy { $0.count * unit.unicodeScalars.count == $0.unicodeScalars.count },
                "\(unit): \(chunks.map(\.unicodeScalars.count))")
        }
    }

    @Test func anEscapedCharacterCountsOnce() {
        let chunks = TelegramText.htmlChunks(String(repeating: "<", count: 150), limit: 100)
        #expect(chunks.count == 2 && TelegramText.visibleLength(chunks[0]) == 100)
    }

    /// Telegram compares edits after parsing and trimming: ours must too, or it refuses them.
    @Test func sameMessageAsTelegramSeesIt() {
        #expect(TelegramText.sameMessage("Echo: <b>hi</b>\n", "Echo: <b>hi</b>"))
        #expect(TelegramText.sameMessage("a &amp; b", " a &amp; b "))
        #expect(!TelegramText.sameMessage("Echo: <b>hi</b>", "Echo: hi"), "formatting changed")
        #expect(!TelegramText.sameMessage("Echo: hi", "Echo: hi there"))
    }

    /// Telegram counts code points (its spec: 4096 after entity parsing). A question in a script
    /// of several code points per character fits in Characters and not in code points.
    @Test func aQuestionsCardFitsInCodePoints() {
        let long = String(repeating: "क्षि", count: 3000)
        let question = QuestionPost(id: "q", sessionID: "s", method: "confirm", title: "Apply?", message: long)
        let card = Deliveries.card(question)
        #expect(TelegramText.visibleLength(card) <= 3500, "\(TelegramText.visibleLength(card))")
        #expect(card.hasPrefix("Apply?\n\nक्षि"))
    }
}
