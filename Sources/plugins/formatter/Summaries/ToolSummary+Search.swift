extension ToolSummary {
    /// `grep `pattern` in `path`` and the same for find; the path is left out when not given.
    var search: String {
        let half = max(12, argumentWidth / 2)
        var line = call.name + " " + code(string("pattern") ?? "", width: half)
        if let where_ = string("path"), !where_.isEmpty { line += " in " + code(where_, width: half) }
        return line
    }

    /// `ls `path``.
    var list: String { "ls " + code(string("path") ?? ".") }

    /// Any other tool: its name and its arguments as compact JSON.
    var generic: String {
        let name = call.name.markdownEscaped
        guard case .object(let fields) = call.args, !fields.isEmpty else { return name }
        return name + " " + code(call.args.serialized())
    }
}
