import PiRelaySDK
import Testing

@testable import FormatterPlugin

@Suite struct NoticeTests {
    func notice(_ kind: String, _ text: String) throws -> String {
        try RelayFormatter(config: FormatterConfig()).respond(to: "format.notice", params: ["notice": .string(kind), "text": .string(text)])["text"]?
            .stringValue ?? ""
    }

    @Test func eachKindHasItsOwnMark() throws {
        #expect(try notice("error", "No API key found for anthropic") == "⚠️ Error: No API key found for anthropic")
        #expect(try notice("aborted", "") == "⏹ Aborted")
        #expect(try notice("retry", "overloaded (attempt 1/3, retrying in 2 s)") == "🔁 Retrying: overloaded (attempt 1/3, retrying in 2 s)")
        #expect(try notice("retry-failed", "Retry cancelled") == "⚠️ Retries exhausted: Retry cancelled")
        #expect(try notice("compaction", "45k → 12k tokens") == "🗜 Compaction: 45k → 12k tokens")
        #expect(
            try notice("extension-error", "command:deploy: TypeError: x is undefined")
                == "⚠️ Extension error: command:deploy: TypeError: x is undefined")
        #expect(try notice("info", "session renamed") == "ℹ️ session renamed")
        #expect(try notice("something-new", "hello") == "ℹ️ hello")
    }

    @Test func longAndMultiLineTextBecomesOneShortLine() throws {
        let text = "Error: request failed\n    at fetch (node:internal)\n" + String(repeating: "frame ", count: 200) + "\nend of trace"
        let line = try notice("error", text)
        #expect(!line.contains("\n"))
        #expect(line.count <= "⚠️ Error: ".count + 300)
        #expect(line.hasSuffix("end of trace"))
        #expect(line.contains("…"))
    }

    /// A notice stays one short line as every platform counts it: 300 characters of twenty
    /// combining marks each are 6,300 code points, and Telegram refuses a message over 4,096
    /// (telegram-bot-api.md §7), so the notice was lost.
    @Test func aLineOfManyCodePointsStaysShort() throws {
        let zalgo = String(repeating: "a" + String(repeating: "\u{0301}", count: 20), count: 300)
        let line = try notice("extension-error", zalgo)
        #expect(line.unicodeScalars.count <= "⚠️ Extension error: ".unicodeScalars.count + 300, "\(line.unicodeScalars.count)")
        #expect(line.contains("…"))
        let html =
            try RelayFormatter(config: FormatterConfig()).respond(
                to: "format.notice", params: ["notice": "error", "text": .string(zalgo), "dialect": "telegram-html"])["text"]?.stringValue ?? ""
        #expect(html.unicodeScalars.count < 4096, "\(html.unicodeScalars.count)")
    }

    @Test func missingNoticeKindIsInvalid() {
        #expect(throws: RemoteError.self) { try RelayFormatter(config: FormatterConfig()).respond(to: "format.notice", params: ["text": "x"]) }
    }
}
