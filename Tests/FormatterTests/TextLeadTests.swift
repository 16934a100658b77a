import Testing

@testable import FormatterPlugin

/// A memo skips every kept text whose lead says it cannot start the text looked up
/// (`TextLead`): a lead may let through a text that differs later, never turn away one that
/// starts with the bytes it holds.
@Suite struct TextLeadTests {
    static let alphabet = ["a", "b", "é", "🙂", "\n", " ", "line\n", "ab"]

    @Test func neverTurnsAwayATextThatStartsWithItsBytes() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let kept = (0..<rng.int(0...12)).map { _ in Self.alphabet[rng.int(0...(Self.alphabet.count - 1))] }.joined()
            let looked = (0..<rng.int(0...12)).map { _ in Self.alphabet[rng.int(0...(Self.alphabet.count - 1))] }.joined()
            let limit = rng.int(0...20)
            let lead = TextLead(kept, limit: limit)
            let held = Array(kept.utf8.prefix(min(limit, TextLead.size)))
            let starts = looked.utf8.starts(with: held)
            #expect(lead.mayStart(TextLead(looked)) == starts, "kept \(kept.debugDescription) limit \(limit), looked \(looked.debugDescription)")
            #expect(lead.mayStart(TextLead(kept + looked)))
        }
    }

    @Test func holdsAtMostSixteenBytes() {
        let lead = TextLead(String(repeating: "x", count: 40))
        #expect(lead.count == 16)
        #expect(lead.mayStart(TextLead(String(repeating: "x", count: 16) + "y")))
        #expect(!lead.mayStart(TextLead(String(repeating: "x", count: 15) + "y")))
        #expect(!lead.mayStart(TextLead("xxx")))
        #expect(TextLead("").mayStart(TextLead("anything")))
    }
}
