extension ToolSummary {
    var path: String { code(string("path") ?? string("file_path") ?? "?") }

    /// `read `path``, with the line range when offset or limit narrowed it.
    var read: String {
        let offset = int("offset"), limit = int("limit")
        switch (offset, limit) {
        // Added with overflow reported: the numbers are the model's, unchecked, and may be huge.
        case let (from?, count?):
            let (last, overflow) = from.addingReportingOverflow(max(count, 1) - 1)
            return overflow ? "read \(path) (from line \(from))" : "read \(path) (lines \(from)–\(last))"
        case let (from?, nil): return "read \(path) (from line \(from))"
        case let (nil, count?): return "read \(path) (lines 1–\(max(count, 1)))"
        case (nil, nil): return "read \(path)"
        }
    }

    /// `edit `path` (+3 −1)`, counted from the result's unified diff once there is one.
    var edit: String {
        guard let diff = call.details["diff"]?.stringValue, !diff.isEmpty else { return "edit \(path)" }
        let stat = DiffStat(diff: diff)
        return "edit \(path) (+\(stat.added) −\(stat.removed))"
    }

    /// `write `path` (12 lines)`.
    var write: String {
        guard let content = call.args["content"]?.stringValue else { return "write \(path)" }
        let lines = Self.lineCount(content)
        return "write \(path) (\(lines == 0 ? "empty" : lines == 1 ? "1 line" : "\(lines) lines"))"
    }

    /// Lines in a file's content: a final line without LF still counts.
    static func lineCount(_ content: String) -> Int {
        guard !content.isEmpty else { return 0 }
        var count = 0
        for byte in content.utf8 where byte == 0x0A { count += 1 }
        return content.utf8.last == 0x0A ? count : count + 1
    }
}
