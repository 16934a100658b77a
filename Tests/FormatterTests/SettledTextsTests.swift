import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// A live view's settled text is read once and kept (`SettledTexts`); what comes out must be what
/// reading every document whole gives, whatever was kept, evicted or never seen.
@Suite struct SettledTextsTests {
    /// Line boundaries of `text`, as UTF-8 offsets just after each LF.
    func lineEnds(_ text: String) -> [Int] {
        var ends: [Int] = []
        for (offset, byte) in text.utf8.enumerated() where byte == 0x0A { ends.append(offset + 1) }
        return ends
    }

    func prefix(_ text: String, utf8 count: Int) -> String {
        String(text[..<text.utf8.index(text.utf8.startIndex, offsetBy: count)])
    }

    @Test func readingInLinePartsGivesWhatReadingWholeGives() {
        var fenced = 0
        for seed in UInt64(1)...300 {
            var rng = SeededGenerator(seed: seed &* 0x51)
            let doc = GeneratedMarkdown(seed: seed, targetLength: rng.int(50...2500)).text
            if doc.contains("```") { fenced += 1 }
            let ends = lineEnds(doc)
            var styler = MarkdownStyler()
            var read = 0
            for end in ends where rng.chance(0.4) {
                styler.read(Substring(prefix(doc, utf8: end).utf8.dropFirst(read)))
                read = end
            }
            styler.read(Substring(doc.utf8.dropFirst(read)))
            guard styler.text == StyledText(markdown: doc) else {
                Issue.record("seed \(seed): reading in parts differs from reading whole")
                return
            }
        }
        // The generator must open and close fences across the parts.
        #expect(fenced > 100)
    }

    @Test func keptReadingsGiveWhatFreshOnesGive() {
        let texts = SettledTexts()
        for seed in UInt64(1)...60 {
            var rng = SeededGenerator(seed: seed &* 0x77)
            let doc = GeneratedMarkdown(seed: seed, targetLength: rng.int(200...3000)).text
            let ends = [0] + lineEnds(doc)
            var settled = 0
            var shown = 0
            while shown < doc.utf8.count {
                shown = min(doc.utf8.count, shown + rng.int(1...90))
                // The settled text only moves forward, to a line boundary within what is shown.
                if rng.chance(0.3), let next = ends.last(where: { $0 <= shown }) { settled = max(settled, next) }
                let current = String(decoding: doc.utf8.prefix(shown), as: UTF8.self)
                let done = prefix(doc, utf8: settled)
                guard current.utf8.starts(with: done.utf8) else { continue }
                let kept = StyledText.live(settled: done, current: current, reusing: texts)
                let fresh = StyledText.live(settled: done, current: current, reusing: nil)
                guard kept.done == fresh.done, kept.now == fresh.now else {
                    Issue.record("seed \(seed) at \(shown), settled \(settled): a kept reading differs")
                    return
                }
            }
        }
        #expect(texts.count <= SettledTexts.maxEntries)
        #expect(texts.count > 0)
    }

    @Test func aSettledTextNotAtALineBoundaryOrNotAPrefixIsReadWhole() {
        let texts = SettledTexts()
        #expect(texts.styled(settled: "half a line", current: "half a line and more\n") == nil)
        #expect(texts.styled(settled: "one\n", current: "two\n") == nil)
        #expect(texts.count == 0)
    }

    /// One formatter kept across a run's views, as the plugin runs, answers each view as a fresh
    /// one does (a restart loses nothing but time).
    @Test(arguments: [Dialect.telegramHTML, .slackMrkdwn, .html])
    func aKeptFormatterAnswersLikeAFreshOne(dialect: Dialect) throws {
        let kept = RelayFormatter(config: FormatterConfig())
        for seed in UInt64(1)...4 {
            let growing = GrowingRun(seed: seed &+ 100, items: 6)
            for (step, state) in growing.states.enumerated() {
                let params: JSONValue = ["run": state, "limit": 600, "dialect": .string(dialect.rawValue)]
                let a = try kept.respond(to: "format.live", params: params)
                let b = try RelayFormatter(config: FormatterConfig()).respond(to: "format.live", params: params)
                guard a == b else {
                    Issue.record("\(dialect) seed \(seed) step \(step): the kept formatter answered differently")
                    return
                }
            }
        }
        #expect(kept.settledTexts.count > 0)
    }

    /// Nothing settles while the text fits one message; the short cut says so without working out
    /// break classes, and agrees with the full search wherever the text fits.
    @Test func aTextThatFitsSettlesNothing() {
        var fitting = 0
        for seed in UInt64(1)...200 {
            var rng = SeededGenerator(seed: seed &* 0x3F)
            let doc = GeneratedMarkdown(seed: seed, targetLength: rng.int(20...900)).text
            guard let end = lineEnds(doc).last else { continue }
            let text = StyledText(markdown: prefix(doc, utf8: end))
            let limit = rng.pick([200, 500, 1000, 4096])
            let splitter = HTMLSplitter(limit: limit)
            let (chunks, rest) = splitter.settledChunks(text)
            let searched = splitter.pieces(text, text.breakClasses(), text.costOffsets(), from: 0, reserve: 0, final: false)
            #expect(chunks.count == searched.pieces.count)
            #expect(rest == searched.end)
            if text.units.drop(while: \.isWhitespace).reduce(0, { $0 + $1.cost }) <= limit { fitting += 1 }
        }
        #expect(fitting > 50 && fitting < 200)
    }
}
