import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// A text that grows is redacted through what was kept of its earlier redactions
/// (`RedactedTexts`); what comes out must be what redacting it whole gives, whatever was kept,
/// evicted or never seen, with every kind of secret cut anywhere, private key blocks included.
@Suite struct RedactedTextsTests {
    /// Prose and code lines with secrets of every kind, some spanning lines (key blocks), long
    /// enough to pass the memo's minimum.
    static func answer(seed: UInt64) -> String {
        var rng = SeededGenerator(seed: seed)
        var lines: [String] = []
        let secrets = RedactionTests.secrets(seed: seed)
        while lines.joined(separator: "\n").utf8.count < 6000 {
            switch rng.int(0...4) {
            case 0: lines.append(secrets[rng.int(0...(secrets.count - 1))].text)
            case 1: lines.append("```")
            case 2: lines.append("")
            default:
                lines.append(
                    (0..<rng.int(1...12)).map { _ in ["the", "token", "key", "=", "password:", "ok", "é", "🙂", "Bearer"][rng.int(0...8)] }
                        .joined(separator: " "))
            }
        }
        return lines.joined(separator: "\n")
    }

    func prefix(_ text: String, utf8 count: Int) -> String {
        var index = text.utf8.index(text.utf8.startIndex, offsetBy: count)
        while index < text.endIndex, text.utf8[index] & 0xC0 == 0x80 { index = text.utf8.index(after: index) }
        return String(text[..<index])
    }

    @Test func aGrowingTextIsRedactedAsIfWhole() throws {
        let fresh = try Redactor(patterns: ["corp-[0-9]{6}"])
        var keyBlocks = 0
        for seed in UInt64(1)...60 {
            let memo = RedactedTexts()
            let redactor = try Redactor(patterns: ["corp-[0-9]{6}"], memo: memo)
            var rng = SeededGenerator(seed: seed &* 0x9E37)
            // Two answers growing side by side, as two runs' live views come.
            let answers = [Self.answer(seed: seed), Self.answer(seed: seed + 1000) + "\nid corp-123456\n"]
            if answers[0].contains("-----BEGIN") { keyBlocks += 1 }
            var shown = [0, 0]
            while shown[0] < answers[0].utf8.count || shown[1] < answers[1].utf8.count {
                let which = rng.int(0...1)
                shown[which] = min(answers[which].utf8.count, shown[which] + rng.int(1...400))
                let text = prefix(answers[which], utf8: shown[which])
                guard redactor.redact(text) == fresh.redact(text) else {
                    Issue.record("seed \(seed): \(text.utf8.count) bytes of answer \(which) redacted otherwise than whole")
                    return
                }
                // A text shorter than one kept (an earlier, settled part of the answer) reuses
                // the lines it shares with it.
                if rng.chance(0.3) {
                    let shorter = prefix(answers[which], utf8: rng.int(0...shown[which]))
                    guard redactor.redact(shorter) == fresh.redact(shorter) else {
                        Issue.record("seed \(seed): \(shorter.utf8.count) bytes (shorter) of answer \(which) redacted otherwise than whole")
                        return
                    }
                }
            }
            #expect(memo.count <= 2)
        }
        // The answers must hold key blocks cut in the middle.
        #expect(keyBlocks > 20)
    }

    /// A live view redacts several texts of one run that start alike and end otherwise: the
    /// answer's settled lines (ending at a blank line), the settled document (trimmed), and the
    /// current document (its growing paragraph closed by a LF). Each reuses what the others
    /// redacted, whichever is longer, so a view scans only its growing paragraph and its new
    /// lines, and one run keeps one entry. Kept by prefixes alone, they evicted each other: half
    /// of every view was scanned again and about 90 stale entries piled up.
    @Test func aViewsSiblingTextsScanOnlyWhatChanged() throws {
        let fresh = try Redactor(patterns: [])
        let memo = RedactedTexts()
        var scanned = 0
        let scan: (Substring) -> String = { part in
            scanned += part.utf8.count
            return SecretScanner.redact(String(part))
        }
        let answer = Self.answer(seed: 7).split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("BEGIN") }
        var settled = ""
        var worst = 0
        for (index, line) in answer.enumerated() {
            // The paragraph still growing: this line, word by word; then it settles.
            let words = line.split(separator: " ", omittingEmptySubsequences: false)
            for count in 1...max(1, words.count) {
                let growing = words.prefix(count).joined(separator: " ")
                scanned = 0
                // As `liveDocuments` makes them: the answer's complete lines, the settled
                // document (trailing blank lines trimmed), the current document.
                var trimmed = Substring(settled)
                while trimmed.hasSuffix("\n\n") { trimmed = trimmed.dropLast() }
                for text in [settled, String(trimmed), settled + growing + "\n"] {
                    #expect(memo.redact(text, whole: scan) == fresh.redact(text), "line \(index)")
                }
                if settled.utf8.count > RedactedTexts.minimumBytes * 2 { worst = max(worst, scanned - 3 * growing.utf8.count) }
            }
            settled += line + "\n"
        }
        #expect(worst <= 3 * 200, "a view scanned \(worst) bytes besides its growing paragraph")
        #expect(memo.count == 1)
    }

    /// The same through `format.live`, as the supervisor asks for a run's views.
    @Test func aRunsLiveViewsKeepOneRedaction() throws {
        let formatter = RelayFormatter(config: FormatterConfig())
        var text = ""
        for step in 0..<120 {
            text += step % 9 == 8 ? "\n\n" : "word\(step) and more words "
            let run = RunFixture.run([RunFixture.text(String(repeating: "An answer that is long enough.\n", count: 40) + text)], done: false)
            _ = try formatter.respond(to: "format.live", params: ["run": run, "limit": 65536, "dialect": "html"])
        }
        #expect(formatter.redactedTexts.count == 1)
    }

    @Test func keptLinesNeverHoldAKeyBlocksStart() throws {
        let memo = RedactedTexts()
        let redactor = try Redactor(patterns: [], memo: memo)
        let prose = String(repeating: "a line of the answer\n", count: 60)
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        _ = redactor.redact(prose)
        #expect(memo.count == 1)
        // The block runs to the end of whatever text comes: the lines holding its start are
        // redacted with the rest, each time, and never kept.
        let cut = redactor.redact(prose + key)
        #expect(cut == prose + SecretScanner.privateKeyMask + "\n")
        let more = prose + key + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nmore\n"
        #expect(redactor.redact(more) == prose + SecretScanner.privateKeyMask + "\n")
        #expect(memo.count == 1)
        #expect(RedactedTexts.startsKeyBlock("x -----BEGIN RSA"))
        #expect(RedactedTexts.startsKeyBlock("------BEGIN RSA"))
        #expect(!RedactedTexts.startsKeyBlock("-----BEGINNING"))
    }

    @Test func shortTextsAndBoundsKeepTheMemoSmall() throws {
        let memo = RedactedTexts()
        let redactor = try Redactor(patterns: [], memo: memo)
        #expect(redactor.redact("token ghp_" + String(repeating: "a1B2c3D4", count: 5) + "\n") == "token ghp_[REDACTED]\n")
        #expect(memo.count == 0)
        for index in 0..<(RedactedTexts.maxEntries + 20) {
            _ = redactor.redact("answer \(index)\n" + String(repeating: "words of prose\n", count: 80))
        }
        #expect(memo.count == RedactedTexts.maxEntries)
    }
}
