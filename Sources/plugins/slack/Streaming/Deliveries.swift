import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// Carries out the supervisor's acknowledged deliveries (`chat.post`, `chat.question.closed`).
/// Returning means Slack took everything, and only then does the SDK ack. Each message sent is
/// recorded, so a delivery repeated after a crash sends only what had not gone out. A delivery
/// that can never succeed (a channel the bot is not in, one that does not exist) is logged and
/// dropped, or it would come back after every restart; a transient failure throws and it stays
/// queued.
struct Deliveries: Sendable {
    let poster: Poster
    let live: LiveMessages
    let progress: Progress
    let questions: QuestionMessages
    let parts: DeliveryParts
    let logger: Logger

    func post(delivery: String, _ params: ChatPostParams) async throws {
        guard let place = Place(params.target) else { throw RemoteError.invalidParams("chat.post needs target.channel (a Slack conversation id)") }
        do {
            switch params.kind {
            case .final: try await final(delivery, place, params)
            case .question: try await question(delivery, place, params)
            case .notice:
                // Rendered for mrkdwn by the formatter (docs/PROTOCOL.md, "Markup").
                let text = params.text ?? ""
                try await parts.send(SlackText.split(text.isEmpty ? "…" : text), of: delivery) { index, chunk in
                    try await poster.send(chunk, to: place, blocks: index == 0 ? Blocks.reply(chunk, actions: params.actions) : nil)
                }
                if text.hasPrefix("⚠️") || text.hasPrefix("⏹") { await progress.finished(in: place, ok: false) }
            default:
                var text = params.text ?? ""
                if params.kind == .echo { text = "▶ " + text }
                try await parts.send(text.isEmpty ? [] : SlackText.chunks(text), of: delivery) { index, chunk in
                    try await poster.send(chunk, to: place, blocks: index == 0 ? Blocks.reply(chunk, actions: params.actions) : nil)
                }
            }
            try await upload(params.files, delivery: delivery, to: place)
        } catch let error as SlackAPIError where error.isPermanent {
            logger.error("chat.post \(params.kind.rawValue) to \(place.key) dropped: \(error)")
            params.files.discard()
        }
    }

    /// The closing edit is noted, and made beside the lane (`showClosings`); a question never
    /// posted here gets the outcome as a message of its own.
    func questionClosed(_ params: QuestionClosedParams) async throws {
        guard !(try await questions.close(session: params.sessionID, question: params.questionID, text: params.text)),
            let place = Place(params.target)
        else { return }
        try await parts.once("closed:" + params.sessionID + "/" + params.questionID) {
            try await poster.send(SlackText.escaped(params.text), to: place)
        }
    }

    /// Closed questions' messages say who answered and what came of it, and lose their controls,
    /// as the chat.update budget allows, until cancelled. The note holds the whole answer (an
    /// editor's reply may be a pasted log), so the text is cut within Slack's limit: over 4,000
    /// characters the edit is refused for good, and the card would keep its buttons.
    func showClosings() async {
        await questions.showClosings(logger: logger, givesUp: { ($0 as? SlackAPIError)?.isPermanent == true }) { [poster] message, text in
            let title = SlackText.escaped(message.title)
            var note = SlackText.escaped(text)
            if let user = message.answeredBy { note = "Answered by " + SlackText.mention(user) + ". " + note }
            try await poster.edit(
                message.ts, in: Place(channel: message.channel, thread: message.thread), to: SlackText.split(title + "\n" + note)[0],
                blocks: Blocks.closed(title, note: note), priority: .answer)
        }
    }

    /// The answer (the kit's `FinalAnswer`), its files (a long answer's `.md`) before the live
    /// view is forgotten, and the prompt's ⏳ turns ✅.
    private func final(_ delivery: String, _ place: Place, _ params: ChatPostParams) async throws {
        var chunks = (params.chunks ?? []).filter { !$0.trimmed().isEmpty }.flatMap { SlackText.split($0) }
        if chunks.isEmpty { chunks = SlackText.chunks(params.text ?? "(no text)") }
        try await FinalAnswer(writer: poster, live: live, parts: parts).post(delivery, runID: params.runID, chunks: chunks, in: place) { _ in
            try await upload(params.files, delivery: delivery, to: place)
        }
        await progress.finished(in: place, ok: true)
    }

    private func question(_ delivery: String, _ place: Place, _ params: ChatPostParams) async throws {
        guard let question = params.question else { throw RemoteError.invalidParams("a question post needs question") }
        var text = "*" + SlackText.escaped(question.title) + "*" + (question.message.map { "\n" + SlackText.verbatim($0) } ?? "")
        switch question.method {
        case "input", "editor": text += "\n_Reply with your answer" + (question.placeholder.map { " (" + SlackText.escaped($0) + ")" } ?? "") + "._"
        case "select": text += "\n_Pick one, or reply with its number._"
        default: break
        }
        let body = SlackText.split(text, limit: 2900)[0]
        try await parts.once(delivery + ":0") {
            await questions.postStarted()
            let ts: String
            do { ts = try await poster.send(body, to: place, blocks: Blocks.question(body, question), priority: .answer) } catch {
                await questions.postFailed()
                throw error
            }
            await questions.add(
                .init(
                    channel: place.channel, thread: place.thread, ts: ts, sessionID: question.sessionID, questionID: question.id,
                    title: String(question.title.prefix(1000)), options: Array(question.options.prefix(100))))
        }
    }

    private func upload(_ files: [PostedFile], delivery: String, to place: Place) async throws {
        try await parts.upload(files, of: delivery) { file in try await poster.upload(path: file.path, filename: file.filename, to: place) }
    }
}
