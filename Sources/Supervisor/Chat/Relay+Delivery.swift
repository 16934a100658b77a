import Foundation
import PiRelaySDK

/// Turns what sessions do into messages for the chats bound to them: live views (droppable),
/// final answers, questions and notices (acknowledged, never lost).
extension Relay {
    static let liveInterval: Duration = .milliseconds(400)

    func session(_ id: String, did news: SessionNews) async {
        switch news {
        case .runStarted(let run):
            for b in chats(of: id) { await host?.slot(b.messenger)?.notify(.chatTyping, ChatTypingParams(target: b.target)) }
            liveUpdate(run)
        case .runUpdated(let run):
            liveUpdate(run)
        case .runFinished(let run):
            live.removeValue(forKey: run.runID)
            await deliverFinal(run)
        case .questionAsked(let q):
            let text = await redacted("❓ " + q.title + (q.message.map { "\n" + $0 } ?? ""))
            var question = q.post
            question.title = await redacted(q.title)
            if let message = q.message { question.message = await redacted(message) }
            await post(to: id) { ChatPostParams(target: $0, kind: .question, sessionID: id, text: text, question: question) }
        case .questionClosed(let q, let outcome):
            for b in chats(of: id) {
                await deliver(
                    b.messenger, .chatQuestionClosed, QuestionClosedParams(target: b.target, sessionID: id, questionID: q.id, text: outcome))
            }
        case .notice(let kind, let text):
            let line = await notice(kind, text)
            await post(to: id) { ChatPostParams(target: $0, kind: .notice, sessionID: id, text: line) }
        case .exited(let reason):
            logger.notice("session \(id) exited: \(reason)")
            let line = await notice("error", "pi exited: \(Redactor.redact(reason)). The next message restarts it.")
            await post(to: id) { ChatPostParams(target: $0, kind: .notice, sessionID: id, text: line) }
        case .promptEcho(let text, let origin):
            let targets = chats(of: id).filter { $0.key != origin }
            guard !targets.isEmpty else { return }
            // The prompt as sent; each messenger marks an echo its own way (Discord: "▶ USER: ").
            let shown = await redacted(text)
            for b in targets {
                await deliver(b.messenger, .chatPost, ChatPostParams(target: b.target, kind: .echo, sessionID: id, text: shown))
            }
        }
    }

    /// A notice line as the formatter renders it (redacted); a plain fallback without it.
    private func notice(_ kind: String, _ text: String) async -> String {
        if let line = await format(.formatNotice, FormatNoticeParams(notice: NoticeKind(wireName: kind), text: text)) { return line.text }
        return (kind == "error" || kind == "extension-error" || kind == "warning" ? "⚠️ " : "ℹ️ ") + Redactor.redact(text)
    }

    /// Everything that leaves the machine is masked for secret shapes by the formatter first;
    /// without one, the daemon's own redactor still masks known secret values.
    func redacted(_ text: String) async -> String {
        if let masked = await format(.formatRedact, FormattedText(text: text)) { return masked.text }
        return Redactor.redact(text)
    }

    /// The same post to every chat watching the session, each with its own target.
    private func post(to sessionID: String, _ params: (Target) -> ChatPostParams) async {
        for binding in chats(of: sessionID) {
            await deliver(binding.messenger, .chatPost, params(binding.target))
        }
    }

    /// Queues an acknowledged delivery in the messenger's outbox. Awaited in place, so the
    /// deliveries for one chat keep the order in which sessions produced them.
    func deliver<Params>(_ messenger: String, _ method: DeliverMethod<Params>, _ params: Params) async {
        guard let slot = await host?.slot(messenger) else {
            logger.warning("no plugin \(messenger) to deliver \(method.name.rawValue) to")
            return
        }
        do { try await slot.deliver(method, params) } catch {
            logger.error("cannot queue \(method.name.rawValue) for \(messenger): \(error)")
        }
    }

    // MARK: Live views

    private func liveUpdate(_ run: RunRecord) {
        // A run with nothing to show yet (it has just started) sends no view: chat.typing already
        // says the agent is working, and an empty view would start the throttle clock and hold
        // the first real text back by up to `liveInterval`.
        guard run.revision > 0, isWatched(run.sessionID) else { return }
        if live[run.runID] != nil {
            live[run.runID]?.latestRevision = run.revision
        } else {
            live[run.runID] = LiveFeed(sessionID: run.sessionID, latestRevision: run.revision)
        }
        scheduleLive(run.runID)
    }

    private func scheduleLive(_ runID: String) {
        guard var feed = live[runID], !feed.scheduled, !feed.inFlight else { return }
        feed.scheduled = true
        live[runID] = feed
        let wait: Duration = feed.lastSent.map { max(.zero, Self.liveInterval - (.now - $0)) } ?? .zero
        // Unstructured on purpose: a trailing timer that flushes the newest view of this run.
        Task {
            if wait > .zero { try? await Task.sleep(for: wait) }
            await self.flushLive(runID)
        }
    }

    private func flushLive(_ runID: String) async {
        guard var feed = live[runID] else { return }
        feed.scheduled = false
        guard feed.latestRevision != feed.sentRevision else { live[runID] = feed; return }
        feed.inFlight = true
        feed.rev += 1
        let rev = feed.rev
        live[runID] = feed
        guard let session = await sessions?.session(id: feed.sessionID), let run = await session.currentRun(runID) else {
            live[runID]?.inFlight = false
            return
        }
        let targets = chats(of: run.sessionID)
        for b in targets {
            let limit = limits[b.messenger] ?? 2000
            let view = await format(.formatLive, FormatRunParams(run: run.view, limit: limit))
            // The run finished while this view was being rendered: the final answer replaces
            // it, so a late live view would only flicker.
            guard live[runID] != nil else { return }
            let shown = view ?? FormatLiveResult(chunks: [], tail: PlainSplit.tail(Self.plainLive(run.text), limit: limit))
            await host?.slot(b.messenger)?.notify(
                .chatLive,
                ChatLiveParams(target: b.target, sessionID: run.sessionID, runID: runID, rev: rev, chunks: shown.chunks, tail: shown.tail))
        }
        guard var after = live[runID] else { return }
        after.inFlight = false
        after.lastSent = .now
        after.sentRevision = run.revision
        live[runID] = after
        if after.latestRevision != run.revision { scheduleLive(runID) }
    }

    /// A growing text shown without the formatter: up to its last whitespace, so a secret still
    /// streaming is never shown half (where its whole value would not match), then masked.
    static func plainLive(_ text: String) -> String {
        guard let end = text.lastIndex(where: \.isWhitespace) else { return "" }
        return Redactor.redact(String(text[...end]))
    }

    // MARK: Final answers

    private func deliverFinal(_ run: RunRecord) async {
        let targets = chats(of: run.sessionID)
        guard !targets.isEmpty else { return }
        for binding in targets {
            let limit = limits[binding.messenger] ?? 2000
            var chunks: [String]
            var files: [PostedFile] = []
            if let rendered = await format(.formatFinal, FormatRunParams(run: run.view, limit: limit)) {
                chunks = rendered.messages
                for file in rendered.files {
                    let path = home.spoolDir + "/\(run.runID)-\(UUID().uuidString.prefix(8))-\(file.filename)"
                    if AtomicFile.write(Array(file.text.utf8), to: path) { files.append(PostedFile(path: path, filename: file.filename)) }
                }
            } else {
                // No formatter: still deliver the answer, split plainly, known secrets masked.
                let text = Redactor.redact(run.text)
                chunks = PlainSplit.chunks(text.isEmpty ? "(no text)" : text, limit: limit)
            }
            await deliver(
                binding.messenger, .chatPost,
                ChatPostParams(
                    target: binding.target, kind: .final, sessionID: run.sessionID, runID: run.runID, chunks: chunks, files: files,
                    mentionUser: binding.user))
        }
    }

    /// Asks the formatter plugin; nil when there is none or it fails (the caller falls back).
    func format<Params, Result>(_ method: RequestMethod<Params, Result>, _ params: Params) async -> Result? {
        guard let formatter = await host?.plugin(forRole: "formatter") else { return nil }
        do { return try await formatter.request(method, params, timeout: .seconds(20)) } catch {
            logger.warning("formatter \(method.name.rawValue) failed: \(error)")
            return nil
        }
    }

    // MARK: Attachments

    /// Runs chat attachments through the attachments plugin. Without it, each file is still
    /// named in the prompt: nothing is dropped silently.
    func inbound(_ items: [AttachmentRef], session: PiSession) async -> (appendix: String, images: [JSONValue], notes: [String]) {
        guard !items.isEmpty else { return ("", [], []) }
        if let attachments = await host?.plugin(forRole: "attachments") {
            do {
                let result = try await attachments.request(
                    .attachmentsInbound, AttachmentsInboundParams(sessionID: session.id, items: items), timeout: .seconds(120))
                // The plugin's appendix is the attachment blocks alone; they go below the user's
                // text, never glued onto its last line (pi reads commands from the first line).
                return (result.appendix.isEmpty ? "" : "\n\n" + result.appendix, result.images.map(\.json), result.notes)
            } catch {
                logger.warning("attachments plugin failed: \(error)")
            }
        }
        let names = items.map { "[attachment \($0.filename.isEmpty ? "file" : $0.filename): not included: the attachments plugin is not available]" }
        return ("\n\n" + names.joined(separator: "\n"), [], ["Attachments could not be processed; they are named in the prompt."])
    }
}
