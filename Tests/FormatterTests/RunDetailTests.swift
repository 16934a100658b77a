import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// `detail: verbose` (a chat in `/progress verbose`): tool output previews, and thinking unless
/// `verboseThinking` is off; `normal` shows neither, as before.
@Suite struct RunDetailTests {
    static let run = RunView(
        sessionID: "s1", sessionName: "api", runID: "s1-1", done: true,
        items: [
            .thinking("Check the tests first."),
            .tools([
                RunView.ToolCall(
                    id: "t1", name: "bash", args: ["command": "npm test"], output: "> test\n\n12 passing\n1 pending\nTOKEN=abc123secretvalue0000"),
                RunView.ToolCall(id: "t2", name: "read", args: ["path": "src/app.ts"], output: ""),
            ]),
            .text("All green."),
        ], stopReason: "stop")

    static func final(_ config: FormatterConfig, _ detail: RunDetail) throws -> String {
        let params = FormatRunParams(run: run, limit: 2000, detail: detail)
        let result = try RelayFormatter(config: config).respond(to: "format.final", params: params.json)
        return (result["messages"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: "\n")
    }

    @Test func normalShowsNoOutputAndNoThinking() throws {
        let text = try Self.final(FormatterConfig(), .normal)
        #expect(!text.contains("↳") && !text.contains("thinking"), "\(text)")
        #expect(text.contains("🔧 `$ npm test`"), "\(text)")
    }

    @Test func verboseShowsTheLastOutputLinesMaskedAndTheThinking() throws {
        let text = try Self.final(FormatterConfig(), .verbose)
        #expect(text.contains("  ↳ `12 passing`") && text.contains("  ↳ `1 pending`"), "\(text)")
        #expect(!text.contains("> test"), "three lines by default, the last ones: \(text)")
        #expect(!text.contains("abc123secretvalue0000"), "output is masked: \(text)")
        #expect(text.contains("💭") && text.contains("Check the tests first."), "\(text)")
    }

    @Test func verboseThinkingOffKeepsTheThinkingOut() throws {
        var config = FormatterConfig()
        config.verboseThinking = false
        config.verboseOutputLines = 1
        let text = try Self.final(config, .verbose)
        #expect(!text.contains("Check the tests first."), "\(text)")
        #expect(!text.contains("12 passing") && text.contains("↳"), "one line of output: \(text)")
    }
}
