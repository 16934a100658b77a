/// `tool_execution_start` / `_update` / `_end`: ids, arguments, and a capped view of the result.
extension PiEventReader {
    func readToolExecution(_ c: inout JSONCursor, collectImages: Bool = false) throws(JSONParseError) -> PiToolExecution {
        var execution = PiToolExecution()
        if collectImages { execution.images = [] }
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("toolCallId") {
                execution.toolCallID = try c.readString()
            } else if key.matches("toolName") {
                execution.toolName = try c.readString()
            } else if key.matches("args") {
                execution.args = PiRawJSON(bytes: Array(try c.valueSlice()))
            } else if key.matches("isError") {
                execution.isError = try c.readBool()
            } else if key.matches("result") || key.matches("partialResult") {
                try readToolResult(&c, into: &execution)
            } else {
                try c.skipValue()
            }
        }
        // Only a result that really carried images says so.
        if execution.images?.isEmpty == true { execution.images = nil }
        return execution
    }

    /// `{"content":[…], "details":{…}}`: text blocks and `details.diff` up to their caps, and
    /// `details.exitCode`. Bash output and file contents past the caps are skipped, not decoded.
    func readToolResult(_ c: inout JSONCursor, into execution: inout PiToolExecution) throws(JSONParseError) {
        guard c.peek == ASCII.openBrace else {
            try c.skipValue()
            return
        }
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("content") {
                var text: [UInt8] = []
                let (found, complete) = try readTextBlocks(
                    &c, into: &text, limit: toolResultTextLimit,
                    images: &execution.images)
                execution.resultText = found ? String(decoding: text, as: UTF8.self) : nil
                execution.resultTextTruncated = !complete
            } else if key.matches("details") {
                try readToolDetails(&c, into: &execution)
            } else {
                try c.skipValue()
            }
        }
    }

    func readToolDetails(_ c: inout JSONCursor, into execution: inout PiToolExecution) throws(JSONParseError) {
        guard c.peek == ASCII.openBrace else {
            try c.skipValue()
            return
        }
        try c.openObject()
        var first = true
        while let key = try c.nextKey(&first) {
            if key.matches("diff") {
                var diff: [UInt8] = []
                if let complete = try c.readString(into: &diff, limit: diffLimit) {
                    execution.diff = String(decoding: diff, as: UTF8.self)
                    execution.diffTruncated = !complete
                }
            } else if key.matches("exitCode") {
                execution.exitCode = try c.readInt()
            } else {
                try c.skipValue()
            }
        }
    }
}
