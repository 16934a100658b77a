import PiRelaySDK

@testable import FormatterPlugin

/// Run views as the supervisor sends them, built from pi event shapes.
enum RunFixture {
    static func run(
        _ items: [JSONValue], done: Bool = true, stopReason: String? = "stop", errorMessage: String? = nil,
        sessionName: String? = "api", runID: String = "r7"
    ) -> JSONValue {
        var run: JSONValue = [
            "sessionId": "s1", "runId": .string(runID), "done": .bool(done), "items": .array(items),
            "stopReason": JSONValue(stopReason), "errorMessage": JSONValue(errorMessage),
        ]
        if let sessionName { run["sessionName"] = .string(sessionName) }
        return run
    }

    static func text(_ t: String) -> JSONValue { ["kind": "text", "text": .string(t)] }
    static func thinking(_ t: String) -> JSONValue { ["kind": "thinking", "text": .string(t)] }
    static func notice(_ kind: String, _ t: String) -> JSONValue { ["kind": "notice", "notice": .string(kind), "text": .string(t)] }
    static func tools(_ calls: [JSONValue]) -> JSONValue { ["kind": "tools", "calls": .array(calls)] }

    /// A call as the supervisor records it from `tool_execution_start` (`args`) and
    /// `tool_execution_end` (`isError`, the text blocks of `result.content` as `output`,
    /// `result.details`).
    static func call(
        _ name: String, _ args: JSONValue, id: String = "toolu_01XrQPnkjYXzpzFGYHBzU2vm", done: Bool = true,
        isError: Bool = false, output: String = "", details: JSONValue = [:]
    ) -> JSONValue {
        [
            "id": .string(id), "name": .string(name), "args": args, "done": .bool(done), "isError": .bool(isError),
            "output": .string(output), "details": details,
        ]
    }

    static func view(_ json: JSONValue) throws -> RunView { try RunView(rendering: json) }
}
