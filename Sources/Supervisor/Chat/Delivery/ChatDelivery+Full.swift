import FoundationEssentials
import PiRelaySDK

/// The whole of an answer on request: `/full`, and the **Show in chat** and **Download .md**
/// buttons under an answer that was cut to a preview (or, in completion-only, to one message).
extension ChatDelivery {
    /// The buttons, by run: `full:chat:RUN`, `full:md:RUN` (run ids start with their session's id).
    package static func fullAnswerActions(runID: String) -> [[Reply.Action]] {
        [
            [
                Reply.Action(id: "full:chat:\(runID)", label: "Show in chat", style: "primary"),
                Reply.Action(id: "full:md:\(runID)", label: "Download .md", style: "secondary"),
            ]
        ]
    }

    /// Completion-only: one message at the end, the answer's first part, with the buttons when
    /// it does not hold the whole answer.
    package func deliverCompletion(_ run: RunRecord, chunks: [String], files: [PostedFile], to binding: Binding, mentionUser: String?) async {
        for file in files { try? FileManager.default.removeItem(atPath: file.path) }
        let whole = chunks.count <= 1 && files.isEmpty
        await deliver(
            binding.messenger, .chatPost,
            ChatPostParams(
                target: binding.target, kind: .notice, sessionID: run.sessionID, runID: run.runID, text: chunks.first ?? "",
                actions: whole ? [] : Self.fullAnswerActions(runID: run.runID), mentionUser: mentionUser))
    }

    /// The buttons under a final whose text was cut to a preview.
    package func offerFullAnswer(_ run: RunRecord, to binding: Binding, parts: Int) async {
        let line = dialect(of: binding.messenger).escape("The answer was cut to a preview. See all of it:")
        await deliver(
            binding.messenger, .chatPost,
            ChatPostParams(
                target: binding.target, kind: .notice, sessionID: run.sessionID, text: line, actions: Self.fullAnswerActions(runID: run.runID)))
    }

    /// Posts the run's whole answer in chat-sized messages; returns how many.
    @discardableResult
    package func showFull(_ run: RunRecord, to binding: Binding) async -> Int {
        let limit = traits.messageLength(binding.messenger)
        let dialect = dialect(of: binding.messenger)
        var chunks: [String]
        if let rendered = await format(.formatFinal, FormatRunParams(run: run.view, limit: limit, maxChunks: 0, dialect: dialect)) {
            chunks = rendered.messages
        } else {
            let text = Redactor.redact(run.text)
            chunks = PlainSplit.escapedChunks(text.isEmpty ? "(no text)" : text, limit: limit, escape: dialect.escape)
        }
        for chunk in chunks {
            await deliver(binding.messenger, .chatPost, ChatPostParams(target: binding.target, kind: .notice, sessionID: run.sessionID, text: chunk))
        }
        return chunks.count
    }

    /// Posts the run's answer as a Markdown file, masked, tables left as written.
    package func sendAnswerFile(_ run: RunRecord, to binding: Binding) async throws -> String {
        let name = "answer-\(run.runID.split(separator: "-").last ?? "1").md"
        let path = home.spoolDir + "/\(UUID().uuidString.prefix(8))-\(name)"
        guard AtomicFile.write(Array((await redacted(run.text) + "\n").utf8), to: path) else {
            throw RemoteError(code: .internal, message: "cannot write \(name) to the spool folder")
        }
        await deliver(
            binding.messenger, .chatPost,
            ChatPostParams(
                target: binding.target, kind: .file, sessionID: run.sessionID, text: "📄 \(name)", files: [PostedFile(path: path, filename: name)]))
        return name
    }
}
