import Testing

@testable import Supervisor

/// `setup` writes the token into .env: other lines stay, the key is replaced, and what it writes
/// reads back through the same parser the daemon uses.
@Suite struct DotEnvWritingTests {
    private func written(_ text: String, _ key: String = "DISCORD_BOT_TOKEN", _ value: String = "abc.DEF-ghi_123") -> String {
        String(decoding: DotEnv.setting(key, to: value, in: Array(text.utf8)), as: UTF8.self)
    }

    @Test func aNewKeyIsAppendedAndOtherLinesKept() {
        #expect(written("") == "DISCORD_BOT_TOKEN=abc.DEF-ghi_123\n")
        #expect(written("# proxy\nHTTPS_PROXY=http://p:3128\n") == "# proxy\nHTTPS_PROXY=http://p:3128\nDISCORD_BOT_TOKEN=abc.DEF-ghi_123\n")
        #expect(written("A=1") == "A=1\nDISCORD_BOT_TOKEN=abc.DEF-ghi_123\n")
    }

    @Test func theKeyIsReplacedWhereItWasAndRepeatsGo() {
        let before = "A=1\nexport DISCORD_BOT_TOKEN=old\nB=2\nDISCORD_BOT_TOKEN = older\n#DISCORD_BOT_TOKEN=note\n"
        #expect(written(before) == "A=1\nDISCORD_BOT_TOKEN=abc.DEF-ghi_123\nB=2\n#DISCORD_BOT_TOKEN=note\n")
        #expect(written(written(before)) == written(before))
    }

    @Test func whatIsWrittenReadsBackAsItWas() throws {
        for value in ["7000000001:AAH-x_y", "a b#c", "tok$en\\x"] {
            let text = written("X=1\n", "TELEGRAM_BOT_TOKEN", value)
            let entries = try DotEnv.parse(Array(text.utf8), file: "/h/.env")
            #expect(entries.first { $0.key == "TELEGRAM_BOT_TOKEN" }?.value == value)
            #expect(entries.first { $0.key == "X" }?.value == "1")
        }
        #expect(!DotEnv.canWrite("it's"))
        #expect(!DotEnv.canWrite("two\nlines"))
        #expect(!DotEnv.canWrite(""))
    }

    /// A line the owner wrote in another encoding (a Latin-1 `é`) is kept byte for byte, not
    /// turned into U+FFFD.
    @Test func otherLinesAreKeptByteForByte() {
        let before: [UInt8] = Array("PGPASSWORD=caf".utf8) + [0xE9] + Array("\nDISCORD_BOT_TOKEN=old\n".utf8)
        let after = DotEnv.setting("DISCORD_BOT_TOKEN", to: "new", in: before)
        #expect(after == Array("PGPASSWORD=caf".utf8) + [0xE9] + Array("\nDISCORD_BOT_TOKEN=new\n".utf8))
    }
}
