extension String {
    /// The text with markdown punctuation escaped, for names shown outside code spans (a tool
    /// called `mcp__github__search` would otherwise come out underlined), and plain text in
    /// Discord's markdown (a question's command, which must read as it will run).
    package var markdownEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for ch in self {
            switch ch {
            case "\\", "*", "_", "~", "`", "|", ">", "#", "[", "]": out.append("\\")
            default: break
            }
            out.append(ch)
        }
        return out
    }
}
