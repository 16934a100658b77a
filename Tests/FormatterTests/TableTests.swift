import Testing

@testable import FormatterPlugin

@Suite struct TableTests {
    @Test func tableBecomesAnAlignedCodeBlock() {
        let text = """
            Prices:

            | Fruit | 数量 | Note |
            |:------|-----:|:----:|
            | apple | 3 | ok |
            | 梨 | 12 | `fresh` |

            After.
            """
        let expected = """
            Prices:

            ```
            Fruit | 数量 | Note
            ------+------+------
            apple |    3 |  ok
            梨    |   12 | fresh
            ```

            After.
            """
        #expect(MarkdownTable.replacingTables(in: text) == expected)
    }

    @Test func columnsLineUpByDisplayWidthWithWideCharactersAndEmoji() {
        let text = "| a | b |\n|---|---|\n| 日本語テキスト | x |\n| 👨‍👩‍👧‍👦🇫🇷 | y |\n| e\u{301}te\u{301} | z |\n"
        let lines = MarkdownTable.replacingTables(in: text).split(separator: "\n").map(String.init)
        let rows = lines.filter { !$0.hasPrefix("```") }
        // The column separator sits at the same display column on every row.
        let columns = Set(
            rows.map { row -> Int in
                let head = row.prefix { $0 != "|" && $0 != "+" }
                return head.displayWidth
            })
        #expect(columns.count == 1)
        #expect(rows.contains("日本語テキスト | x"))
    }

    @Test func displayWidths() {
        #expect("abc".displayWidth == 3)
        #expect("日本".displayWidth == 4)
        #expect("한국".displayWidth == 4)
        #expect("ＡＢ".displayWidth == 4)
        #expect("👨‍👩‍👧‍👦".displayWidth == 2)
        #expect("🇫🇷".displayWidth == 2)
        #expect("❤️".displayWidth == 2)
        #expect("é".displayWidth == 1)
        #expect("e\u{301}".displayWidth == 1)
    }

    @Test func pipesInsideCodeAndEscapedPipesAreHandled() {
        let inCode = "```\n| a | b |\n|---|---|\n| 1 | 2 |\n```\n"
        #expect(MarkdownTable.replacingTables(in: inCode) == inCode)
        let escaped = "| expr | value |\n|---|---|\n| a \\| b | 1 |\n"
        #expect(MarkdownTable.replacingTables(in: escaped) == "```\nexpr  | value\n------+------\na | b | 1\n```\n")
    }

    @Test func notATableWithoutADelimiterRow() {
        let text = "a | b\nc | d\n"
        #expect(MarkdownTable.replacingTables(in: text) == text)
        let mismatched = "| a | b |\n|---|\n| 1 | 2 |\n"
        #expect(MarkdownTable.replacingTables(in: mismatched) == mismatched)
    }

    @Test func shortRowsArePaddedAndLongRowsCut() {
        let text = "| a | b |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |"
        #expect(MarkdownTable.replacingTables(in: text) == "```\na | b\n--+--\n1 |\n1 | 2\n```")
    }

    @Test func tablesAreConvertedInChatButKeptInFiles() throws {
        let run = try RunFixture.view(RunFixture.run([RunFixture.text("| a | b |\n|---|---|\n| 1 | 2 |")]))
        let redactor = try Redactor(patterns: [])
        let chat = RunRenderer(config: FormatterConfig(), redactor: redactor, target: .chat).document(run)
        let file = RunRenderer(config: FormatterConfig(), redactor: redactor, target: .file).document(run)
        #expect(chat.hasPrefix("```\na | b"))
        #expect(file.hasPrefix("| a | b |"))
        var off = FormatterConfig()
        off.convertTables = false
        #expect(RunRenderer(config: off, redactor: redactor, target: .chat).document(run).hasPrefix("| a | b |"))
    }
}
