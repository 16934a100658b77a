import PiRelaySDK
import Testing

@testable import FormatterPlugin

@Suite struct PerformanceTests {
    /// A 200 KB answer with code, tables, emoji and CJK. Release builds take a few milliseconds;
    /// the bound is loose for debug builds and shared machines, and catches anything quadratic.
    @Test func a200KBAnswerFormatsQuickly() throws {
        var text = ""
        var seed: UInt64 = 1
        while text.utf8.count < 200_000 {
            text += GeneratedMarkdown(seed: seed, targetLength: 4000).text
            seed += 1
        }
        let run = RunFixture.run([RunFixture.text(text)])
        let formatter = RelayFormatter(config: FormatterConfig())
        let clock = ContinuousClock()
        let final = try clock.measure {
            _ = try formatter.respond(to: "format.final", params: ["run": run, "limit": 2000, "maxChunks": 0])
        }
        let live = try clock.measure {
            _ = try formatter.respond(to: "format.live", params: ["run": run, "limit": 2000])
        }
        #expect(final < .seconds(3), "format.final took \(final)")
        #expect(live < .seconds(3), "format.live took \(live)")
    }

    /// A line of unmatched markers (a model repeating itself): each looks only so far for its
    /// closer (`InlineMarkdown.reach`), so the line is not quadratic, and the formatter, which
    /// answers every chat, is not held up by one.
    @Test(arguments: ["[", "*a ", "`", "_b "])
    func aLineOfUnmatchedMarkersFormatsQuickly(_ marker: String) throws {
        let line = String(repeating: marker, count: 60_000 / marker.count)
        let clock = ContinuousClock()
        let took = clock.measure { _ = TelegramHTML().split(line, limit: 4096, numbered: true) }
        #expect(took < .seconds(3), "took \(took)")
    }
}
