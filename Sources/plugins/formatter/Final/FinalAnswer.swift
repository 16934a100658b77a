import PiRelaySDK

/// `format.final`: the finished run as chat messages, or, when it would take more than
/// `maxChunks` of them, a short preview plus the whole document as a `.md` file. Messages are in
/// the messenger's markup; the file stays markdown, which file viewers render.
struct FinalAnswer {
    let messages: [String]
    let files: [AttachedFile]

    static let emptyAnswer = "(no output)"

    init(
        run: RunView, limit: Int, maxChunks: Int, config: FormatterConfig, redactor: Redactor,
        markup: any Markup = DiscordMarkdown()
    ) {
        let chat = RunRenderer(config: config, redactor: redactor, target: .chat)
        let document = chat.document(run, includeTools: config.toolsInFinal).trimmingTrailingNewlines()
        // A document of markup alone (an empty code block) has no visible text in a dialect that
        // hides markup: it is no answer either.
        let chunks = document.isEmpty ? [] : markup.split(document, limit: limit, numbered: true)
        guard !chunks.isEmpty else {
            messages = [markup.rendered(Self.emptyAnswer)]
            files = []
            return
        }
        if maxChunks == 0 || chunks.count <= maxChunks {
            messages = chunks
            files = []
            return
        }
        let file = RunRenderer(config: config, redactor: redactor, target: .file).document(run)
        let name = Self.filename(for: run)
        files = [AttachedFile(filename: name, text: file)]
        messages = [
            Self.preview(
                run: run, document: document, filename: name, chunkCount: chunks.count,
                limit: limit, renderer: chat, markup: markup)
        ]
    }

    /// The start of the answer (the last text, which is the model's conclusion, or else the
    /// document), a note pointing at the file, and the stop notice if the run failed, each in
    /// the markup and measured by it.
    static func preview(
        run: RunView, document: String, filename: String, chunkCount: Int, limit: Int,
        renderer: RunRenderer, markup: any Markup
    ) -> String {
        let note = markup.rendered("📎 The full answer (\(chunkCount) messages long) is attached as `\(filename)`.")
        let stop = renderer.stopBlock(run).map { markup.rendered($0.trimmingTrailingNewlines()) }
        var source = document
        for case .text(let text) in run.items.reversed() {
            if let block = renderer.textBlock(text, openEnded: false, quoted: false) {
                source = renderer.redactor.redact(block).trimmingTrailingNewlines()
                break
            }
        }
        var tailLength = markup.length(note) + 2
        if let stop { tailLength += markup.length(stop) + 2 }
        let room = min(renderer.config.previewLength, limit - tailLength - 2)
        var parts: [String] = []
        if room >= ChunkSplitter.minimumLimit {
            let pieces = markup.split(source, limit: room, numbered: false)
            if let first = pieces.first { parts.append(pieces.count > 1 ? first + "\n…" : first) }
        }
        if let stop { parts.append(stop) }
        parts.append(note)
        let message = parts.joined(separator: "\n\n")
        if markup.length(message) <= limit { return message }
        // Only with a limit far below any messenger's: the file name alone must do.
        return markup.escaped(("📎 " + filename).elidingMiddle(to: limit - 2))
    }

    /// `<session>-<run>.md`, with only filename-safe characters.
    static func filename(for run: RunView) -> String {
        func safe(_ name: String) -> String {
            let mapped = name.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".": return Character(scalar)
                default: return "-"
                }
            }
            var result = String(mapped.prefix(40))
            while result.hasPrefix(".") || result.hasPrefix("-") { result.removeFirst() }
            return result
        }
        var base = safe(run.sessionName ?? run.sessionID ?? "")
        if base.isEmpty { base = "answer" }
        if let id = run.runID.map(safe), !id.isEmpty { base += "-" + id }
        return base + ".md"
    }

    var json: JSONValue {
        ["messages": .array(messages.map { .string($0) }), "files": .array(files.map(\.json))]
    }
}
