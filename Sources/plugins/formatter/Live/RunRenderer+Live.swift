import PiRelaySDK

extension RunRenderer {
    /// The two documents the live view needs for a run still going:
    ///
    /// - `settled`: the part no later state of the run can change. It is made of the leading
    ///   items that can no longer change (every item before the last, while its tools are done)
    ///   and the settled part of a last text (see `settledPrefix`). It ends with a LF.
    /// - `current`: everything so far, with the last text held back to its last whitespace so
    ///   that a half-streamed token (perhaps half a secret) is never shown.
    ///
    /// `settled` is a prefix of `current` and of the documents of every later state of the run.
    /// For a finished run both are the full document.
    func liveDocuments(_ run: RunView) -> (settled: String, current: String) {
        if run.done {
            let whole = document(run)
            return (whole, whole)
        }
        let items = run.items
        var settled: [String] = []
        var index = 0
        while index < items.count - 1, Self.isSettled(items[index]) {
            if let rendered = block(items[index], openEnded: false) { settled.append(rendered) }
            index += 1
        }
        if index == items.count - 1, let growing = Self.growingText(items[index]) {
            let part = Self.settledPrefix(growing)
            if !part.isEmpty, let rendered = block(Self.replacingText(items[index], with: part), openEnded: true) { settled.append(rendered) }
        }

        var current: [String] = []
        for (position, item) in items.enumerated() {
            var shown = item
            if position == items.count - 1, let growing = Self.growingText(item) {
                shown = Self.replacingText(item, with: Self.heldBack(growing))
            }
            if let rendered = block(shown, openEnded: false) { current.append(rendered) }
        }
        if let stop = stopBlock(run) { current.append(stop) }
        return (redactor.redact(settled.joined(separator: "\n")), redactor.redact(current.joined(separator: "\n")))
    }

    static func isSettled(_ item: RunView.Item) -> Bool {
        if case .tools(let calls) = item { return calls.allSatisfy(\.done) }
        return true
    }

    static func growingText(_ item: RunView.Item) -> String? {
        switch item {
        case .text(let text), .thinking(let text): return text
        default: return nil
        }
    }

    static func replacingText(_ item: RunView.Item, with text: String) -> RunView.Item {
        if case .thinking = item { return .thinking(text) }
        return .text(text)
    }

    /// The part of a growing text whose rendering cannot change: its complete lines, minus
    /// trailing lines with a pipe outside code (they may be, or become, a table whose column
    /// widths depend on rows still to come).
    static func settledPrefix(_ text: String) -> String {
        guard let lastLF = text.utf8.lastIndex(of: 0x0A) else { return "" }
        let complete = text[...lastLF]
        let lines = MarkdownLine.scan(complete)
        var keep = lines.count
        while keep > 0, lines[keep - 1].kind.isText, lines[keep - 1].text.utf8.contains(UInt8(ascii: "|")) { keep -= 1 }
        if keep == lines.count { return String(complete) }
        return String(complete[..<lines[keep].text.startIndex])
    }

    /// A growing text up to and including its last whitespace.
    static func heldBack(_ text: String) -> String {
        guard let last = text.utf8.lastIndex(where: { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 }) else { return "" }
        return String(text[...last])
    }
}
