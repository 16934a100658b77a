import PiRelaySDK

/// The calls of one assistant message (they may have run in parallel), one line each, at most
/// `maxLines` lines.
struct ToolGroup {
    let calls: [RunView.ToolCall]
    let maxLines: Int
    let argumentWidth: Int

    func lines(redactor: Redactor) -> [String] {
        let shown = calls.count <= maxLines ? calls.count : max(0, maxLines - 1)
        var lines = calls.prefix(shown).map {
            ToolSummary(call: $0, argumentWidth: argumentWidth, redactor: redactor).line
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
}
