/// `tool_execution_start` / `_update` / `_end`: ids, arguments, and a capped view of the result.
extension PiEventReader {
    func readToolExecution(_ cursor: inout JSONCursor, collectImages: Bool = false) throws(JSONParseError) -> PiToolExecution {
        var execution = PiToolExecution()
        if collectImages { execution.images = [] }
        try cursor.openObject()
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("toolCallId") {
                execution.toolCallID = try cursor.readString()
            } else if key.matches("toolName") {
                execution.toolName = try cursor.readString()
            } else if key.matches("args") {
                execution.args = PiRawJSON(bytes: Array(try cursor.valueSlice()))
            } else if key.matches("isError") {
                execution.isError = try cursor.readBool()
            } else if key.matches("result") || key.matches("partialResult") {
                try readToolResult(&cursor, into: &execution)
            } else {
                try cursor.skipValue()
            }
        }
        // Only a result that really carried images says so.
        if execution.images?.isEmpty == true { execution.images = nil }
        return execution
    }

    /// `{"content":[…], "details":{…}}`: text blocks and `details.diff` up to their caps, and
    /// `details.exitCode`. Bash output and file contents past the caps are skipped, not decoded.
    func readToolResult(_ cursor: inout JSONCursor, into execution: inout PiToolExecution) throws(JSONParseError) {
        guard try cursor.openObjectOrSkip() else { return }
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("content") {
                var text: [UInt8] = []
                let (found, complete) = try readTextBlocks(
                    &cursor, into: &text, limit: toolResultTextLimit,
                    images: &execution.images)
                execution.resultText = found ? String(decoding: text, as: UTF8.self) : nil
                execution.resultTextTruncated = !complete
            } else if key.matches("details") {
                try readToolDetails(&cursor, into: &execution)
            } else {
                try cursor.skipValue()
            }
        }
    }

    func readToolDetails(_ cursor: inout JSONCursor, into execution: inout PiToolExecution) throws(JSONParseError) {
        guard try cursor.openObjectOrSkip() else { return }
        var first = true
        while let key = try cursor.nextKey(&first) {
            if key.matches("diff") {
                var diff: [UInt8] = []
                if let complete = try cursor.readString(into: &diff, limit: diffLimit) {
                    execution.diff = String(decoding: diff, as: UTF8.self)
                    execution.diffTruncated = !complete
                }
            } else if key.matches("exitCode") {
                execution.exitCode = try cursor.readInt()
            } else {
                try cursor.skipValue()
            }
        }
    }
}
