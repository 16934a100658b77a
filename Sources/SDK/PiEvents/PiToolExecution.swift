/// `tool_execution_start` / `_update` / `_end`. The result (`partialResult` on updates, `result` on
/// the end) is reduced to its text and a few `details`, each capped by `PiEventReader`'s limits.
package struct PiToolExecution: Sendable, Hashable {
    package var toolCallID: String?
    package var toolName: String?
    /// The arguments the model produced, e.g. `{"command":"ls"}` for bash.
    package var args: PiRawJSON?
    /// `tool_execution_end` only.
    package var isError: Bool?
    /// The `text` content blocks concatenated, at most `PiEventReader.toolResultTextLimit` bytes
    /// (cut on a character boundary). Updates carry the accumulated output so far, not a delta.
    package var resultText: String?
    /// True when `resultText` was cut.
    package var resultTextTruncated: Bool
    /// `details.diff` of an `edit`, at most `PiEventReader.diffLimit` bytes.
    package var diff: String?
    package var diffTruncated: Bool
    /// `details.exitCode`, when a tool reports one.
    package var exitCode: Int?
    /// Images in a finished tool's result (`tool_execution_end` only; nil elsewhere).
    package var images: [PiImage]?

    package init(
        toolCallID: String? = nil, toolName: String? = nil, args: PiRawJSON? = nil, isError: Bool? = nil,
        resultText: String? = nil, resultTextTruncated: Bool = false, diff: String? = nil,
        diffTruncated: Bool = false, exitCode: Int? = nil
    ) {
        self.toolCallID = toolCallID
        self.toolName = toolName
        self.args = args
        self.isError = isError
        self.resultText = resultText
        self.resultTextTruncated = resultTextTruncated
        self.diff = diff
        self.diffTruncated = diffTruncated
        self.exitCode = exitCode
    }
}
