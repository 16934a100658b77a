import Testing

@testable import FormatterPlugin

@Suite struct SplittingTests {
    @Test func textWithinTheLimitIsOneUnnumberedChunk() {
        #expect(ChunkSplitter(limit: 2000).split("Hello **world**") == ["Hello **world**"])
        #expect(ChunkSplitter(limit: 2000).split("").isEmpty)
    }

    /// Blank lines longer than a message make no message of whitespace alone on Discord, which
    /// refuses it (discord-api.md §8 item 3, 50006): such a chunk reads "…".
    @Test func aLongRunOfBlankLinesMakesNoWhitespaceMessageOnDiscord() {
        for text in ["Intro\n" + String(repeating: "\n", count: 5000) + "end\n", "Intro\n" + String(repeating: " ", count: 3000) + "\nend\n"] {
            let live = DiscordMarkdown().live(settled: text, current: text, limit: 2000).chunks
            #expect(!live.isEmpty && live.allSatisfy { !$0.allSatisfy(\.isWhitespace) }, "\(live.map(\.count))")
            let whole = DiscordMarkdown().split(text, limit: 2000, numbered: false)
            #expect(whole.allSatisfy { !$0.allSatisfy(\.isWhitespace) } && whole.last?.contains("end") == true, "\(whole.map(\.count))")
        }
    }

    @Test func paragraphsAreNumberedAndBrokenBetween() {
        let paragraph = String(repeating: "word ", count: 30).trimmingTrailingSpace()
        let text = [paragraph, paragraph, paragraph].joined(separator: "\n\n")
        let chunks = ChunkSplitter(limit: 200).split(text)
        #expect(chunks == ["[1/3] " + paragraph + "\n\n", "[2/3] " + paragraph + "\n\n", "[3/3] " + paragraph])
    }

    @Test func aCodeFenceIsClosedAndReopenedWithItsLanguage() throws {
        let code = (1...40).map { "let value\($0) = \($0) * 2" }.joined(separator: "\n")
        let text = "Here:\n\n```swift\n" + code + "\n```\n\nDone."
        let chunks = ChunkSplitter(limit: 300).split(text)
        #expect(chunks.count > 2)
        for (i, chunk) in chunks.enumerated() {
            #expect(chunk.utf16.count <= 300)
            if i > 0, i < chunks.count - 1 {
                #expect(chunk.hasPrefix("[\(i + 1)/\(chunks.count)]\n```swift\n"))
                #expect(chunk.hasSuffix("\n```"))
            }
        }
        #expect(try ChunkNormaliser.join(chunks, numbered: true).text == text)
    }

    @Test func aLongInfoStringIsShortenedToTheLanguageWhenReopened() {
        let fence = Fence.opening(Array("```python title=\"a-rather-long-file-name.py\" linenums=\"1\"".utf8))
        #expect(fence?.language == "python")
        #expect(fence?.reopeningLine == "```python")
        #expect(Fence.opening(Array("````".utf8))?.reopeningLine == "````")
        #expect(Fence.opening(Array("```a```".utf8)) == nil)
        #expect(Fence.opening(Array("~~~ js".utf8))?.info == "js")
    }

    @Test func aLinkIsNotSplitEvenWhenAWordBoundaryInsideItFits() throws {
        let filler = String(repeating: "abc ", count: 20)
        let link = "[a link with several words](https://example.com/some/long/path)"
        let text = filler + link + " tail words here"
        let chunks = ChunkSplitter(limit: 100).split(text)
        let joined = try ChunkNormaliser.join(chunks, numbered: true)
        #expect(joined.text == text)
        let start = filler.utf16.count, end = start + link.utf16.count
        #expect(joined.boundaries.allSatisfy { $0 <= start || $0 >= end })
    }

    @Test func inlineCodeIsNotSplit() throws {
        let filler = String(repeating: "xyz ", count: 20)
        let code = "`let a = b + c + d`"
        let text = filler + code + " and more words after it"
        let chunks = ChunkSplitter(limit: 100).split(text)
        let joined = try ChunkNormaliser.join(chunks, numbered: true)
        let start = filler.utf16.count, end = start + code.utf16.count
        #expect(joined.boundaries.allSatisfy { $0 <= start || $0 >= end })
    }

    @Test func emojiAndFlagsAreNeverCutApart() throws {
        let text = String(repeating: "😀🇫🇷👨‍👩‍👧‍👦", count: 60)
        for limit in [100, 101, 113] {
            let chunks = ChunkSplitter(limit: limit).split(text)
            try SplitInvariants.check(chunks, original: text, atoms: [], limit: limit)
        }
    }

    @Test func cjkWithoutSpacesIsSplitBetweenCharacters() throws {
        let text = String(repeating: "日本語のテキストには空白がない。", count: 40)
        let chunks = ChunkSplitter(limit: 150).split(text)
        #expect(chunks.count > 1)
        try SplitInvariants.check(chunks, original: text, atoms: [], limit: 150)
    }

    @Test func labelsWidenPastNineChunks() {
        let text = (1...40).map { "Paragraph number \($0) with some words in it." }.joined(separator: "\n\n")
        let chunks = ChunkSplitter(limit: 100).split(text)
        #expect(chunks.count >= 10)
        #expect(chunks.first?.hasPrefix("[1/\(chunks.count)] ") == true)
        #expect(chunks.allSatisfy { $0.utf16.count <= 100 })
    }

    @Test func aChunkStartingWithABlockGetsItsLabelOnItsOwnLine() {
        #expect(ChunkNumbering(index: 2, total: 3).prefix(for: "# Heading") == "[2/3]\n")
        #expect(ChunkNumbering(index: 2, total: 3).prefix(for: "- item") == "[2/3]\n")
        #expect(ChunkNumbering(index: 2, total: 3).prefix(for: "Plain") == "[2/3] ")
    }

    @Test func aCutNeverLeavesAFenceLookingLineBehind() throws {
        // Inside a code line, "```" after some text must not end up alone at a chunk edge.
        let line = String(repeating: "a", count: 70) + " ``` " + String(repeating: "b", count: 70)
        let text = "```\n" + line + "\n```"
        let chunks = ChunkSplitter(limit: 100).split(text)
        try SplitInvariants.check(chunks, original: text, atoms: [], limit: 100)
    }

    @Test func aHugeStackOfCombiningMarksStillSplits() throws {
        let text = "a" + String(repeating: "\u{301}", count: 400) + " end"
        let chunks = ChunkSplitter(limit: 100).split(text)
        #expect(chunks.allSatisfy { $0.utf16.count <= 100 })
        #expect(try ChunkNormaliser.join(chunks, numbered: true).text == text)
    }
}

extension String {
    fileprivate func trimmingTrailingSpace() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
