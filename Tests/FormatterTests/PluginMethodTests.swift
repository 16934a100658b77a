import PiRelaySDK
import Testing

@testable import FormatterPlugin

@Suite struct PluginMethodTests {
    let formatter = RelayFormatter(config: FormatterConfig())

    @Test func manifest() {
        #expect(RelayFormatter.manifest.name == "formatter")
        #expect(RelayFormatter.manifest.roles == ["formatter"])
    }

    @Test func unknownMethodIsMethodNotFound() {
        #expect(throws: RemoteError.methodNotFound("format.nope")) { try formatter.respond(to: "format.nope", params: [:]) }
    }

    @Test func badParamsAreInvalidParams() {
        for (method, params) in [
            ("format.final", [:]), ("format.live", ["run": "x"]), ("format.final", ["run": ["items": 3]]),
            ("format.final", ["run": ["items": []], "limit": 20]), ("format.final", ["run": ["items": []], "maxChunks": -1]),
            ("format.redact", [:]),
        ] as [(String, JSONValue)] {
            do {
                _ = try formatter.respond(to: method, params: params)
                Issue.record("\(method) \(params) was accepted")
            } catch {
                #expect(error.code == .invalidParams, "\(method) \(params)")
            }
        }
    }

    @Test func statusReportsConfigAndCounts() throws {
        _ = try formatter.respond(to: "format.redact", params: ["text": "x"])
        let status = try formatter.respond(to: "status", params: [:])
        #expect(status["name"] == "formatter")
        #expect(status["config"]?["maxChunks"] == 4)
        #expect(status["config"]?["showThinking"] == false)
        #expect(status["requests"]?["format.redact"] == 1)
    }

    @Test func statusDoesNotEchoRedactPatterns() throws {
        let config = try FormatterConfig(json: ["redact": ["hunter2-secret"]])
        let status = try RelayFormatter(config: config).respond(to: "status", params: [:])
        #expect(!status.serialized().contains("hunter2"))
        #expect(status["config"]?["redactPatterns"] == 1)
    }

    @Test func configIsReadAndValidated() throws {
        let config = try FormatterConfig(json: [
            "showThinking": true, "maxChunks": 6, "redact": ["corp-\\d+"], "maxToolLines": 3,
            "toolArgumentWidth": 50, "noticeWidth": 100, "previewLength": 500,
            "convertTables": false, "toolsInFinal": false, "defaultLimit": 4000, "unknown": 1,
        ])
        #expect(config.showThinking && config.maxChunks == 6 && config.redact == ["corp-\\d+"] && config.maxToolLines == 3)
        #expect(config.toolArgumentWidth == 50 && config.noticeWidth == 100 && config.previewLength == 500)
        #expect(!config.convertTables && !config.toolsInFinal && config.defaultLimit == 4000)
        #expect(try FormatterConfig(json: [:]) == FormatterConfig())
        #expect(try FormatterConfig(json: ["redact": "single"]).redact == ["single"])
        for bad: JSONValue in [["showThinking": "yes"], ["maxChunks": -1], ["maxChunks": 1.5], ["redact": [1]], ["defaultLimit": 10], "text"] {
            #expect(throws: FormatterConfigError.self, "\(bad)") { try FormatterConfig(json: bad) }
        }
    }

    @Test func redactMethod() throws {
        let result = try formatter.respond(to: "format.redact", params: ["text": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123"])
        #expect(result["text"] == "Authorization: Bearer [REDACTED]")
    }

    @Test func defaultLimitAppliesWhenTheRequestHasNone() throws {
        var config = FormatterConfig()
        config.defaultLimit = 150
        let text = String(repeating: "word ", count: 100)
        let result = try RelayFormatter(config: config).respond(
            to: "format.final", params: ["run": RunFixture.run([RunFixture.text(text)]), "maxChunks": 0])
        let messages = (result["messages"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(messages.count > 1 && messages.allSatisfy { $0.utf16.count <= 150 })
    }
}
