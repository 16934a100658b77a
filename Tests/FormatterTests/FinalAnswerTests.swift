import PiRelaySDK
import Testing

@testable import FormatterPlugin

@Suite struct FinalAnswerTests {
    func final(
        _ run: JSONValue, limit: Int = 2000, maxChunks: Int? = nil, config: FormatterConfig = FormatterConfig()
    ) throws -> (messages: [String], files: [JSONValue]) {
        var params: JSONValue = ["run": run, "limit": JSONValue(limit)]
        if let maxChunks { params["maxChunks"] = JSONValue(maxChunks) }
        let result = try RelayFormatter(config: config).respond(to: "format.final", params: params)
        return ((result["messages"]?.arrayValue ?? []).compactMap(\.stringValue), result["files"]?.arrayValue ?? [])
    }

    /// Models escape the `_` in a token; every dialect drops the backslash, so the token must be
    /// masked as read without it.
    @Test func aTokenWithAnEscapedUnderscoreIsMasked() throws {
        let token = #"ghp\_0123456789abcdefghijABCDEFGHIJxyz1"#
        let run = RunFixture.run([RunFixture.text("Use \(token) for the \\*push\\*.")])
        for dialect in ["telegramHTML", "slackMrkdwn", "html", "markdown"] {
            var params: JSONValue = ["run": run, "limit": 2000]
            params["dialect"] = .string(dialect)
            let result = try RelayFormatter(config: FormatterConfig()).respond(to: "format.final", params: params)
            let text = (result["messages"]?.arrayValue ?? []).compactMap(\.stringValue).joined()
            #expect(!text.contains("0123456789abcdef") && text.contains("REDACTED"), "\(dialect): \(text)")
        }
        #expect(try final(RunFixture.run([RunFixture.text(#"Keep \*this\* as it is."#)])).messages == [#"Keep \*this\* as it is."#])
    }

    @Test func shortAnswerIsOneMessageWithoutFiles() throws {
        let (messages, files) = try final(RunFixture.run([RunFixture.text("All tests pass.")]))
        #expect(messages == ["All tests pass."])
        #expect(files.isEmpty)
    }

    @Test func thinkingIsHiddenByDefaultAndShownWhenConfigured() throws {
        let run = RunFixture.run([RunFixture.thinking("Let me check the parser.\n\nThen the tests."), RunFixture.text("Fixed.")])
        #expect(try final(run).messages == ["Fixed."])
        var config = FormatterConfig()
        config.showThinking = true
        #expect(try final(run, config: config).messages == ["> 💭 *thinking*\n> Let me check the parser.\n>\n> Then the tests.\n\nFixed."])
    }

    @Test func longAnswerIsSplitNumbered() throws {
        let text = (1...18).map { "Paragraph \($0): " + String(repeating: "lorem ipsum ", count: 10) }.joined(separator: "\n\n")
        let (messages, files) = try final(RunFixture.run([RunFixture.text(text)]), limit: 1000)
        #expect(messages.count > 1 && messages.count <= 4)
        #expect(files.isEmpty)
        #expect(messages.allSatisfy { $0.utf16.count <= 1000 })
        #expect(try ChunkNormaliser.join(messages, numbered: true).text == text)
    }

    @Test func moreThanMaxChunksBecomesAPreviewAndAFile() throws {
        let answer = (1...80).map { "Paragraph \($0): " + String(repeating: "lorem ipsum ", count: 12) }.joined(separator: "\n\n")
        let run = RunFixture.run(
            [
                RunFixture.text("First I looked around."),
                RunFixture.tools([RunFixture.call("ls", ["path": "."])]),
                RunFixture.text("| a | b |\n|---|---|\n| 1 | 2 |\n\n" + answer),
            ],
            sessionName: "api server", runID: "r/7")
        let (messages, files) = try final(run, limit: 2000)
        #expect(messages.count == 1)
        let preview = messages[0]
        #expect(preview.utf16.count <= 2000)
        #expect(preview.hasPrefix("```\na | b"))
        #expect(preview.contains("📎"))
        #expect(preview.contains("`api-server-r-7.md`"))
        #expect(files.count == 1)
        #expect(files[0]["filename"]?.stringValue == "api-server-r-7.md")
        let file = files[0]["text"]?.stringValue ?? ""
        // The file keeps the markdown table, the tool line and everything else.
        #expect(file.contains("| a | b |"))
        #expect(file.contains("🔧 ls `.`"))
        #expect(file.contains("Paragraph 80:"))
    }

    @Test func maxChunksFromTheRequestWinsAndZeroMeansNoFile() throws {
        let answer = (1...40).map { "Line \($0) " + String(repeating: "x", count: 80) }.joined(separator: "\n\n")
        let run = RunFixture.run([RunFixture.text(answer)])
        #expect(try final(run, limit: 500, maxChunks: 2).files.count == 1)
        let unlimited = try final(run, limit: 500, maxChunks: 0)
        #expect(unlimited.files.isEmpty)
        #expect(unlimited.messages.count > 4)
        var config = FormatterConfig()
        config.maxChunks = 100
        #expect(try final(run, limit: 500, config: config).files.isEmpty)
    }

    @Test func errorsAndAbortsEndTheAnswer() throws {
        let errored = RunFixture.run(
            [RunFixture.text("Partial answer")], stopReason: "error",
            errorMessage: "529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}")
        #expect(try final(errored).messages == ["Partial answer\n\n⚠️ Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}"])
        let aborted = RunFixture.run([RunFixture.text("Half")], stopReason: "aborted", errorMessage: "Request was aborted")
        #expect(try final(aborted).messages == ["Half\n\n⏹ Aborted"])
        // A notice item that already says so is not repeated.
        let noticed = RunFixture.run([RunFixture.text("x"), RunFixture.notice("error", "boom")], stopReason: "error", errorMessage: "boom")
        #expect(try final(noticed).messages == ["x\n\n⚠️ Error: boom"])
    }

    @Test func emptyRunSaysSo() throws {
        #expect(try final(RunFixture.run([])).messages == ["(no output)"])
    }

    @Test func toolLinesCanBeLeftOutOfFinalMessages() throws {
        var config = FormatterConfig()
        config.toolsInFinal = false
        let run = RunFixture.run([RunFixture.tools([RunFixture.call("ls", ["path": "."])]), RunFixture.text("Done.")])
        #expect(try final(run, config: config).messages == ["Done."])
        #expect(try final(run).messages == ["🔧 ls `.`\n\nDone."])
    }

    @Test func anUnclosedFenceFromTheModelIsClosed() throws {
        let run = RunFixture.run([RunFixture.text("```swift\nlet x = 1"), RunFixture.text("After")])
        #expect(try final(run).messages == ["```swift\nlet x = 1\n```\n\nAfter"])
    }
}
