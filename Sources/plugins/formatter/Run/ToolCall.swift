import PiRelaySDK

/// One tool call in a `tools` item.
struct ToolCall: Sendable {
    var id: String
    var name: String
    /// The arguments as the model wrote them (`tool_execution_start.args`).
    var args: JSONValue
    var done: Bool
    var isError: Bool
    /// The start of the result text.
    var output: String
    /// The result's `details` (`diff` for edit, `truncation` for bash, …).
    var details: JSONValue

    init(
        id: String = "", name: String, args: JSONValue = [:], done: Bool = true, isError: Bool = false,
        output: String = "", details: JSONValue = [:]
    ) {
        self.id = id
        self.name = name
        self.args = args
        self.done = done
        self.isError = isError
        self.output = output
        self.details = details
    }
}
