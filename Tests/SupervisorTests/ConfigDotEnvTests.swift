import Testing

@testable import Supervisor

@Suite struct ConfigDotEnvTests {
    private func parse(_ text: String) throws(ConfigError) -> [String: String] {
        var result: [String: String] = [:]
        for entry in try DotEnv.parse(Array(text.utf8), file: "/h/.env") { result[entry.key] = entry.value }
        return result
    }

    private func error(_ text: String) -> ConfigError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func parsesTheUsualForms() throws {
        let values = try parse(
            """
            # Discord
            DISCORD_BOT_TOKEN=abc.def-ghi
              export  OPENAI_API_KEY = sk-1 # trailing comment
            EMPTY=
            HASH=a#b
            SINGLE='it is # not a comment'
            DOUBLE="line1\\nline2 \\"q\\" \\\\ \\$HOME \\x"
            SPACED="  padded  "   # comment after quotes
            WINDOWS=crlf\r
            _UNDER9=1

            export=plain
            """)
        #expect(
            values == [
                "DISCORD_BOT_TOKEN": "abc.def-ghi",
                "OPENAI_API_KEY": "sk-1",
                "EMPTY": "",
                "HASH": "a#b",
                "SINGLE": "it is # not a comment",
                "DOUBLE": "line1\nline2 \"q\" \\ $HOME \\x",
                "SPACED": "  padded  ",
                "WINDOWS": "crlf",
                "_UNDER9": "1",
                "export": "plain",
            ])
    }

    /// A comment right after `=` and a blank leaves the value empty: the placeholder a user
    /// has not filled in is not sent as a token.
    @Test func aCommentRightAfterTheEqualsSignLeavesTheValueEmpty() throws {
        let values = try parse("DISCORD_BOT_TOKEN= # paste your token here\nTABBED=\t# later\nHASH=#not-a-comment\n")
        #expect(values == ["DISCORD_BOT_TOKEN": "", "TABBED": "", "HASH": "#not-a-comment"])
    }

    @Test func aByteOrderMarkIsNoPartOfTheFirstKey() throws {
        var result: [String: String] = [:]
        for entry in try DotEnv.parse([0xEF, 0xBB, 0xBF] + Array("DISCORD_BOT_TOKEN=abc\n".utf8), file: "/h/.env") {
            result[entry.key] = entry.value
        }
        #expect(result == ["DISCORD_BOT_TOKEN": "abc"])
    }

    @Test func singleQuotesAreLiteral() throws {
        #expect(try parse("A='x\\ny $Z \"q\"'") == ["A": "x\\ny $Z \"q\""])
    }

    @Test func badLinesAreSyntaxErrorsWithLineAndColumn() throws {
        let missingEquals = try #require(error("A=1\n  just-words here\n"))
        #expect(missingEquals.kind == .syntax)
        #expect(missingEquals.description == "/h/.env:2:3: expected KEY=VALUE")

        let badKey = try #require(error("9LIVES=1"))
        #expect(badKey.description == "/h/.env:1:1: expected KEY=VALUE, where KEY is letters, digits and _ (not starting with a digit)")

        let open = try #require(error("A=1\nTOKEN=\"abc\n"))
        #expect(open.description == "/h/.env:2:7: the double quote opened here is not closed on this line")

        let openSingle = try #require(error("export B='abc"))
        #expect(openSingle.description == "/h/.env:1:10: the single quote opened here is not closed on this line")

        let trailing = try #require(error("C=\"abc\"def"))
        #expect(trailing.description == "/h/.env:1:8: unexpected text after the closing quote")
    }

    /// A Latin-1 `é` is not read as U+FFFD: the value would be a different secret, and `setup`
    /// would write the changed line back.
    @Test func aLineThatIsNotUTF8IsAnErrorWithItsLine() throws {
        var bytes = Array("A=1\nPGPASSWORD=caf".utf8)
        bytes += [0xE9, 0x0A]
        do {
            _ = try DotEnv.parse(bytes, file: "/h/.env")
            Issue.record("a line that is not UTF-8 was read")
        } catch {
            #expect("\(error)" == "/h/.env:2:1: this line is not UTF-8 text; save the file as UTF-8", "\(error)")
        }
    }

    @Test func loaderAddsOnlyVariablesTheEnvironmentLacks() throws {
        let home = ConfigTestHome()
        home.write(".env", "A=from-dotenv\nB=from-dotenv\nC=\n")
        let loaded = try home.load(environment: ["A": "from-environment", "HOME": "/h"])
        #expect(loaded.dotenv == ["B": "from-dotenv", "C": ""])
    }

    @Test func repeatedKeysWarnAndTheLastWins() throws {
        let home = ConfigTestHome()
        home.write(".env", "A=1\nB=2\nA=3\n")
        let loaded = try home.load()
        #expect(loaded.dotenv == ["A": "3", "B": "2"])
        #expect(loaded.warnings == ["\(home.dotenvPath):3:1: A is set again (first on line 1); the last value is used"])
    }

    @Test func loaderReportsDotenvSyntaxErrors() throws {
        let home = ConfigTestHome()
        home.write(".env", "OK=1\nnot a line\n")
        let error = try #require(home.loadError())
        #expect(error.description == "\(home.dotenvPath):2:1: expected KEY=VALUE")
    }
}
