import MessengerKit
import Testing

@testable import DiscordPlugin

@Suite("Text fitting")
struct TextFitTests {
    @Test func clampNeverExceedsAndMarksTheCut() {
        #expect(TextFit.clamp("short", to: 10) == "short")
        let cut = TextFit.clamp(String(repeating: "a", count: 30), to: 10)
        #expect(cut.utf16.count <= 10 && cut.hasSuffix("…"))
        // Characters outside the BMP count two UTF-16 units and are never split.
        let emoji = TextFit.clamp(String(repeating: "🙂", count: 20), to: 11)
        #expect(emoji.utf16.count <= 11 && emoji.unicodeScalars.allSatisfy { $0 == "🙂" || $0 == "…" })
    }

    @Test func splitKeepsEverythingInPiecesWithinTheLimit() {
        let text = (1...400).map { "line \($0) with some words" }.joined(separator: "\n")
        let pieces = TextFit.split(text, limit: 2000)
        #expect(pieces.count > 1)
        #expect(pieces.allSatisfy { $0.utf16.count <= 2000 })
        #expect(pieces.joined() == text)
        #expect(pieces.dropLast().allSatisfy { $0.hasSuffix("\n") })
        #expect(TextFit.split("", limit: 5).isEmpty)
        let noBreaks = String(repeating: "x", count: 4500)
        #expect(TextFit.split(noBreaks, limit: 2000).map(\.count) == [2000, 2000, 500])
    }
}
