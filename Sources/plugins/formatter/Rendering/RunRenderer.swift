import PiRelaySDK

/// Turns a run view into one markdown document: the items in order, each as a block (text,
/// thinking when shown, the tool lines of one assistant message, a notice line), blocks separated
/// by a blank line, and a closing notice for a run that stopped on an error or an abort.
///
/// Every block ends with one LF and blocks are joined with one more, so the document for a run
/// whose items only grew at the end starts with the document of the shorter run: the live view's
/// finished chunks are built on that.
struct RunRenderer {
    let config: FormatterConfig
    let redactor: Redactor
    let target: RenderTarget

    /// The whole run, every fence closed, redacted.
    func document(_ run: RunView, includeTools: Bool = true) -> String {
        var blocks = run.items.compactMap { block($0, openEnded: false, includeTools: includeTools) }
        if let stop = stopBlock(run) { blocks.append(stop) }
        return redactor.redact(blocks.joined(separator: "\n"))
    }

    /// The block for one item, or nil when it shows nothing.
    func block(_ item: RunView.Item, openEnded: Bool, includeTools: Bool = true) -> String? {
        switch item {
        case .text(let text):
            return textBlock(text, openEnded: openEnded, quoted: false)
        case .thinking(let text):
            return config.showThinking ? textBlock(text, openEnded: openEnded, quoted: true) : nil
        case .tools(let calls):
            guard includeTools, !calls.isEmpty else { return nil }
            let group = ToolGroup(
                calls: calls, maxLines: config.maxToolLines, argumentWidth: config.toolArgumentWidth, outputLines: config.outputLines)
            return group.lines(redactor: redactor).joined(separator: "\n") + "\n"
        case .notice(let kind, let text):
            return NoticeLine(kind: kind, text: text).rendered(width: config.noticeWidth, redactor: redactor) + "\n"
        }
    }

    /// `\x` for ASCII punctuation x, as markdown reads it: x.
    static func withoutEscapes(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var escaping = false
        for character in text {
            if escaping {
                if !(character.isASCII && character.isPunctuation || character.isASCII && character.isSymbol) { out.append("\\") }
                out.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        if escaping { out.append("\\") }
        return out
    }

    /// Text as sent: redacted, tables converted for chat, an unclosed fence closed (unless the
    /// text is still growing), thinking quoted, blank lines trimmed at both ends.
    func textBlock(_ text: String, openEnded: Bool, quoted: Bool) -> String? {
        var shown = redactor.redact(text)
        // A model escapes the `_` in a token (`ghp\_…`): the scanner, reading the backslash, sees
        // no token, and every dialect then drops the backslash. Read without escapes, a secret found
        // there is masked, at the cost of that text's escapes.
        if shown.contains("\\") {
            let plain = Self.withoutEscapes(shown)
            let masked = redactor.redact(plain)
            if masked != plain { shown = masked }
        }
        if target == .chat, config.convertTables { shown = MarkdownTable.replacingTables(in: shown) }
        let lines = MarkdownLine.scan(Substring(shown))
        if !openEnded, let open = MarkdownLine.openFence(after: lines) {
            shown = shown.trimmingTrailingNewlines() + "\n" + open.closingLine
        }
        if quoted { shown = Self.quoted(MarkdownLine.scan(Substring(shown))) }
        let body = shown.trimmingLeadingBlankLines().trimmingTrailingNewlines()
        return body.isEmpty ? nil : body + "\n"
    }

    /// Thinking as a quote under a 💭 line. Fenced code is left unquoted: a fence inside a quote
    /// would be invisible to the splitter's fence tracking.
    static func quoted(_ lines: [MarkdownLine]) -> String {
        guard lines.contains(where: { !$0.text.isBlank }) else { return "" }
        var out = "> 💭 *thinking*"
        for line in lines {
            out += "\n"
            if line.kind.isText {
                out += line.text.isBlank ? ">" : "> " + line.text
            } else {
                out += line.text
            }
        }
        return out
    }

    /// A notice for a run that ended on an error or an abort, unless an item already says so.
    func stopBlock(_ run: RunView) -> String? {
        let kind: NoticeKind
        let text: String
        switch run.stopReason {
        case "error":
            kind = .error
            text = run.errorMessage ?? ""
        case "aborted":
            kind = .aborted
            text = ""
        default:
            return nil
        }
        for case .notice(let shownKind, let shownText) in run.items where shownKind == kind && (kind == .aborted || shownText == text) { return nil }
        return NoticeLine(kind: kind, text: text).rendered(width: config.noticeWidth, redactor: redactor) + "\n"
    }
}
