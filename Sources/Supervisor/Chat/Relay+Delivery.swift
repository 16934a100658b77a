import Foundation
import PiRelaySDK

/// Turns what sessions do into messages for the chats bound to them: live views (droppable),
/// final answers, questions and notices (acknowledged, never lost).
extension Relay {
    static let liveInterval: Duration = .milliseconds(400)

    func session(_ id: String, did news: SessionNews) async {
        switch news {
        case .runStarted(let run):
            for b in chats(of: id) { await host?.slot(b.messenger)?.notify("chat.typing", params: ["target": b.target]) }
            liveUpdate(run)
        case .runUpdated(let run):
            liveUpdate(run)
        case .runFinished(let run):
            live.removeValue(forKey: run.runID)
            await deliverFinal(run)
        case .questionAsked(let q):
            let text = await redacted("❓ " + q.title + (q.message.map { "\n" + $0 } ?? ""))
            var question = q.json
            question["title"] = .string(await redacted(q.title))
            if let m = q.message { question["message"] = .string(await redacted(m)) }
            await post(to: id, ["kind": "question", "sessionId": .string(id), "text": .string(text), "question": question])
        case .questionClosed(let q, let outcome):
            for b in chats(of: id) {
                await deliver(
                    b.messenger, "chat.question.closed",
                    [
                        "target": b.target, "sessionId": .string(id),
                        "questionId": .string(q.id), "text": .string(outcome),
                    ])
            }
        case .notice(let kind, let text):
            await post(to: id, ["kind": "notice", "sessionId": .string(id), "text": .string(await notice(kind, text))])
        case .exited(let reason):
            logger.notice("session \(id) exited: \(reason)")
            await post(
                to: id,
                [
                    "kind": "notice", "sessionId": .string(id),
                    "text": .string(await notice("error", "pi exited: \(Redactor.redact(reason)). The next message restarts it.")),
                ])
        case .promptEcho(let text, let origin):
            let targets = chats(of: id).filter { $0.key != origin }
            guard !targets.isEmpty else { return }
            // The prompt as sent; each messenger marks an echo its own way (Discord: "▶ USER: ").
            let shown = await redacted(text)
            for b in targets {
                await deliver(
                    b.messenger, "chat.post",
                    [
                        "target": b.target, "kind": "echo", "sessionId": .string(id),
                        "text": .string(shown),
                    ])
            }
        }
    }

    /// A notice line as the formatter renders it (redacted); a plain fallback without it.
    private func notice(_ kind: String, _ text: String) async -> String {
        if let r = await format("format.notice", ["notice": .string(kind), "text": .string(text)]), let t = r["text"]?.stringValue {
            return t
        }
        return (kind == "error" || kind == "extension-error" || kind == "warning" ? "⚠️ " : "ℹ️ ") + Redactor.redact(text)
    }

    /// Everything that leaves the machine is masked for secret shapes by the formatter first;
    /// without one, the daemon's own redactor still masks known secret values.
    func redacted(_ text: String) async -> String {
        if let r = await format("format.redact", ["text": .string(text)]), let t = r["text"]?.stringValue { return t }
        return Redactor.redact(text)
    }

    private func post(to sessionID: String, _ params: JSONValue) async {
        for b in chats(of: sessionID) {
            var p = params
            p["target"] = b.target
            await deliver(b.messenger, "chat.post", p)
        }
    }

    /// Queues an acknowledged delivery in the messenger's outbox. Awaited in place, so the
    /// deliveries for one chat keep the order in which sessions produced them.
    func deliver(_ messenger: String, _ method: String, _ params: JSONValue) async {
        guard let slot = await host?.slot(messenger) else {
            logger.warning("no plugin \(messenger) to deliver \(method) to")
            return
        }
        do { try await slot.deliver(method, params: params) } catch {
            logger.error("cannot queue \(method) for \(messenger): \(error)")
        }
    }

    // MARK: Live views

    private func liveUpdate(_ run: RunView) {
        // A run with nothing to show yet (it has just started) sends no view: chat.typing already
        // says the agent is working, and an empty view would start the throttle clock and hold
        // the first real text back by up to `liveInterval`.
        guard run.revision > 0, !chats(of: run.sessionID).isEmpty else { return }
        if var feed = live[run.runID] {
            feed.latest = run
            live[run.runID] = feed
        } else {
            live[run.runID] = LiveFeed(latest: run)
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
        guard feed.latest.revision != feed.sentRevision else { live[runID] = feed; return }
        feed.inFlight = true
        feed.rev += 1
        let run = feed.latest
        let rev = feed.rev
        live[runID] = feed
        let targets = chats(of: run.sessionID)
        for b in targets {
            let limit = limits[b.messenger] ?? 2000
            let view = await format("format.live", ["run": run.json, "limit": JSONValue(limit)])
            // The run finished while this view was being rendered: the final answer replaces
            // it, so a late live view would only flicker.
            guard live[runID] != nil else { return }
            let chunks = view?["chunks"] ?? .array([])
            let tail = view?["tail"] ?? .string(PlainSplit.tail(Self.plainLive(run.text), limit: limit))
            await host?.slot(b.messenger)?.notify(
                "chat.live",
                params: [
                    "target": b.target, "sessionId": .string(run.sessionID), "runId": .string(runID), "rev": JSONValue(rev),
                    "chunks": chunks, "tail": tail,
                ])
        }
        guard var after = live[runID] else { return }
        after.inFlight = false
        after.lastSent = .now
        after.sentRevision = run.revision
        live[runID] = after
        if after.latest.revision != run.revision { scheduleLive(runID) }
    }

    /// A growing text shown without the formatter: up to its last whitespace, so a secret still
    /// streaming is never shown half (where its whole value would not match), then masked.
    static func plainLive(_ text: String) -> String {
        guard let end = text.lastIndex(where: \.isWhitespace) else { return "" }
        return Redactor.redact(String(text[...end]))
    }

    // MARK: Final answers

    private func deliverFinal(_ run: RunView) async {
        let targets = chats(of: run.sessionID)
        guard !targets.isEmpty else { return }
        for b in targets {
            let limit = limits[b.messenger] ?? 2000
            var chunks: [JSONValue]
            var files: [JSONValue] = []
            if let r = await format("format.final", ["run": run.json, "limit": JSONValue(limit)]),
                let messages = r["messages"]?.arrayValue
            {
                chunks = messages
                for f in r["files"]?.arrayValue ?? [] {
                    guard let name = f["filename"]?.stringValue, let text = f["text"]?.stringValue else { continue }
                    let path = home.spoolDir + "/\(run.runID)-\(UUID().uuidString.prefix(8))-\(name)"
                    if AtomicFile.write(Array(text.utf8), to: path) {
                        files.append(["path": .string(path), "filename": .string(name)])
                    }
                }
            } else {
                // No formatter: still deliver the answer, split plainly, known secrets masked.
                let text = Redactor.redact(run.text)
                chunks = PlainSplit.chunks(text.isEmpty ? "(no text)" : text, limit: limit).map { .string($0) }
            }
            var p: JSONValue = [
                "target": b.target, "kind": "final", "sessionId": .string(run.sessionID),
                "runId": .string(run.runID), "chunks": .array(chunks),
            ]
            if !files.isEmpty { p["files"] = .array(files) }
            if let user = b.user { p["mentionUser"] = .string(user) }
            await deliver(b.messenger, "chat.post", p)
        }
    }

    /// Asks the formatter plugin; nil when there is none or it fails (the caller falls back).
    func format(_ method: String, _ params: JSONValue) async -> JSONValue? {
        guard let f = await host?.plugin(forRole: "formatter") else { return nil }
        do { return try await f.request(method, params: params, timeout: .seconds(20)) } catch {
            logger.warning("formatter \(method) failed: \(error)")
            return nil
        }
    }

    // MARK: Attachments

    /// Runs chat attachments through the attachments plugin. Without it, each file is still
    /// named in the prompt: nothing is dropped silently.
    func inbound(_ items: [JSONValue], session: PiSession) async -> (appendix: String, images: [JSONValue], notes: [String]) {
        guard !items.isEmpty else { return ("", [], []) }
        if let a = await host?.plugin(forRole: "attachments") {
            do {
                let r = try await a.request(
                    "attachments.inbound", params: ["sessionId": .string(session.id), "items": .array(items)],
                    timeout: .seconds(120))
                // The plugin's appendix is the attachment blocks alone; they go below the user's
                // text, never glued onto its last line (pi reads commands from the first line).
                let appendix = r["appendix"]?.stringValue ?? ""
                return (
                    appendix.isEmpty ? "" : "\n\n" + appendix, r["images"]?.arrayValue ?? [],
                    (r["notes"]?.arrayValue ?? []).compactMap(\.stringValue)
                )
            } catch {
                logger.warning("attachments plugin failed: \(error)")
            }
        }
        let names = items.map { "[attachment \($0["filename"]?.stringValue ?? "file"): not included: the attachments plugin is not available]" }
        return ("\n\n" + names.joined(separator: "\n"), [], ["Attachments could not be processed; they are named in the prompt."])
    }
}
