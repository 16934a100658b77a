/// Random markdown for the splitting properties: paragraphs of ASCII, CJK, emoji (ZWJ
/// sequences, flags, skin tones, keycaps), combining marks, inline code and links (whose UTF-16
/// ranges are recorded), headings, lists, quotes, tables, long unbroken words, and code fences
/// of several kinds with languages.
struct GeneratedMarkdown {
    private(set) var text = ""
    /// UTF-16 ranges of inline code spans and links: no chunk boundary may fall strictly inside.
    private(set) var atoms: [Range<Int>] = []
    private var length16 = 0

    static let words = [
        "the", "fix", "is", "in", "parser", "swift", "build", "a", "token", "chunk", "message",
        "limit", "Discord", "renders", "it", "well", "—", "naïve", "café", "über", "don't", "(see)",
        "1.", "2)", "**bold**", "_em_", "~~x~~", "#tag", "C++", "a|b", "x>y",
    ]
    static let cjk = ["日本語", "中文字符", "한국어", "テスト", "漢字かな交じり文", "数据", "表格", "｜全角｜", "ｶﾀｶﾅ"]
    static let emoji = [
        "👨‍👩‍👧‍👦", "🧑🏻‍💻", "👍🏽", "🇫🇷", "🇯🇵🇺🇸", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "#️⃣", "❤️", "🎉", "😀", "🏳️‍🌈",
        "e\u{301}", "a\u{308}\u{323}", "Z\u{324}\u{354}\u{367}\u{311}", "\u{1F600}\u{1F601}",
    ]
    static let languages = ["swift", "python", "", "js", "bash", "json", "rust title=\"main.rs\" linenums=\"1\"", "c++"]

    init(seed: UInt64, targetLength: Int) {
        var rng = SeededGenerator(seed: seed)
        while length16 < targetLength {
            switch rng.int(0...19) {
            case 0...7: paragraph(&rng)
            case 8...10: codeBlock(&rng)
            case 11: table(&rng)
            case 12: append("# " + sentence(&rng, words: 3) + "\n\n")
            case 13: list(&rng)
            case 14: append("> " + sentence(&rng, words: 8) + "\n> " + sentence(&rng, words: 5) + "\n\n")
            case 15: append(String(repeating: "\n", count: rng.int(1...4)))
            case 16: longWord(&rng)
            case 17: append(sentence(&rng, words: rng.int(1...12)) + "\n")
            default: paragraph(&rng)
            }
        }
    }

    private mutating func append(_ s: String) {
        text += s
        length16 += s.utf16.count
    }

    private mutating func appendAtom(_ s: String) {
        atoms.append(length16..<(length16 + s.utf16.count))
        append(s)
    }

    private func sentence(_ rng: inout SeededGenerator, words n: Int) -> String {
        (0..<n).map { _ in
            switch rng.int(0...9) {
            case 0...5: return rng.pick(Self.words)
            case 6, 7: return rng.pick(Self.cjk)
            default: return rng.pick(Self.emoji)
            }
        }.joined(separator: " ")
    }

    private mutating func paragraph(_ rng: inout SeededGenerator) {
        let lines = rng.int(1...4)
        for l in 0..<lines {
            let pieces = rng.int(3...30)
            for p in 0..<pieces {
                if p > 0 { append(" ") }
                switch rng.int(0...19) {
                case 0: appendAtom("`" + sentence(&rng, words: rng.int(1...3)).replacing("`", with: "") + "`")
                case 1:
                    appendAtom(
                        "[" + sentence(&rng, words: rng.int(1...3)).filter { !"[]()`".contains($0) } + "](https://example.com/"
                            + String(rng.int(0...999)) + ")")
                case 2: appendAtom("``a ` b``")
                case 3 where rng.chance(0.3): append(String(repeating: rng.pick(["x", "日", "🎉", "é"]), count: rng.int(30...260)))
                case 4...6: append(rng.pick(Self.cjk) + rng.pick(Self.cjk))
                case 7, 8: append(rng.pick(Self.emoji))
                default: append(rng.pick(Self.words))
                }
            }
            append(l == lines - 1 ? "\n\n" : "\n")
        }
    }

    private mutating func codeBlock(_ rng: inout SeededGenerator) {
        let marker = rng.pick(["```", "```", "````", "~~~"])
        let indent = rng.chance(0.15) ? "   " : ""
        append(indent + marker + rng.pick(Self.languages) + "\n")
        for _ in 0..<rng.int(0...30) {
            switch rng.int(0...9) {
            case 0: append("\n")
            case 1: append(String(repeating: "0123456789abcdef", count: rng.int(2...20)) + "\n")
            case 2 where marker == "````": append("```inner\n")
            case 3: append("let s = \"" + rng.pick(Self.cjk) + rng.pick(Self.emoji) + "\" // `tick` [x](y)\n")
            default: append(String(repeating: "  ", count: rng.int(0...3)) + sentence(&rng, words: rng.int(1...8)) + "\n")
            }
        }
        append(indent + marker + "\n")
        if rng.chance(0.7) { append("\n") }
    }

    private mutating func table(_ rng: inout SeededGenerator) {
        let columns = rng.int(2...4)
        func row(_ rng: inout SeededGenerator) -> String {
            "| " + (0..<columns).map { _ in rng.chance(0.5) ? rng.pick(Self.cjk) : rng.pick(Self.words) }.joined(separator: " | ") + " |\n"
        }
        append(row(&rng))
        append("|" + (0..<columns).map { _ in rng.pick(["---", ":--", "--:", ":-:"]) }.joined(separator: "|") + "|\n")
        for _ in 0..<rng.int(1...6) { append(row(&rng)) }
        append("\n")
    }

    private mutating func list(_ rng: inout SeededGenerator) {
        for i in 0..<rng.int(1...5) {
            append((rng.chance(0.5) ? "- " : "\(i + 1). ") + sentence(&rng, words: rng.int(2...10)) + "\n")
        }
        append("\n")
    }

    private mutating func longWord(_ rng: inout SeededGenerator) {
        append(String(repeating: rng.pick(["ab", "字", "😀", "🇫🇷"]), count: rng.int(50...400)) + "\n\n")
    }
}
