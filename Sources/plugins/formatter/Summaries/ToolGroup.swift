import PiRelaySDK

/// The calls of one assistant message (they may have run in parallel), one line each, at most
/// `maxLines` lines.
struct ToolGroup {
    let calls: [RunView.ToolCall]
    let maxLines: Int
    let argumentWidth: Int
    /// Lines of each call's output shown under its line (`/progress verbose`); 0 shows none.
    var outputLines = 0

    func lines(redactor: Redactor) -> [String] {
        let shown = calls.count <= maxLines ? calls.count : max(0, maxLines - 1)
        var lines: [String] = []
        for call in calls.prefix(shown) {
            lines.append(ToolSummary(call: call, argumentWidth: argumentWidth, redactor: redactor).line)
            lines += outputPreview(call, redactor: redactor)
        }
        let hidden = calls.dropFirst(shown)
        guard !hidden.isEmpty else { return lines }
        var notes: [String] = []
        let failed = hidden.filter(\.isError).count
        let running = hidden.filter { !$0.done && !$0.isError }.count
        if failed > 0 { notes.append("\(failed) failed") }
        if running > 0 { notes.append("\(running) running") }
        let more = hidden.count == 1 ? "1 more call" : "\(hidden.count) more calls"
        lines.append("… " + more + (notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"))
        return lines
    }

    /// The last `outputLines` non-blank lines of a call's output, cut and in a code span (output
    /// may hold markdown or fences of its own). Masked whole before the lines are taken: a private
    /// key's body lines are a secret only with the BEGIN line above them.
    func outputPreview(_ call: RunView.ToolCall, redactor: Redactor) -> [String] {
        guard outputLines > 0 else { return [] }
        let masked = redactor.redact(call.output)
        let tail = masked.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }.suffix(outputLines)
        return tail.map { "  ↳ " + InlineCode.wrap(String($0).singleLine.elidingMiddle(to: argumentWidth)) }
    }
}
