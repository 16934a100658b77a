import FoundationEssentials
import Logging
import PiRelaySDK

/// Turns what sessions do into messages for the chats bound to them: live views (droppable),
/// final answers, questions and notices (acknowledged, never lost). The formatter renders and
/// masks them when there is one.
package actor ChatDelivery: SessionObserver {
    /// How often a waiting live view is looked at: views go out within a tick of their interval.
    package static let liveTick: Duration = .milliseconds(100)

    package let home: Home
    package let logger: Logger
    package let host: PluginHost
    package let bindings: ChatBindings
    package let metrics: RelayMetrics
    /// Each chat's progress mode, pause and mentions.
    package let preferences: ChatPreferences
    /// Who is mentioned when a long run ends.
    package var pings: LongRunPings
    /// Prompts queued behind a running turn, by session id, oldest first: their `⏳` comes off
    /// when pi takes them.
    package var queuedPrompts: [String: [QueuedPrompt]] = [:]
    /// Where the spawned pis' waiting prompts are kept, so a killed daemon's next start can
    /// tell their chats (`ChatDelivery+Progress`); nil in tests that need no file.
    package var queuedFile: StateFile<QueuedPromptRecord>?
    /// Where a failed save of `queuedFile` is reported (`status`).
    package var queuedFailures = StateFailures()
    /// Live feeds by run id, while the run goes on.
    package var live: [String: LiveFeed] = [:]
    /// Flushes throttled live views while any is waiting; see `scheduleLive`.
    package var liveTicker: Task<Void, Never>?
    /// Each messenger's longest message, largest upload, markup and live-view pace, from its hello.
    package var traits = MessengerTraits()
    private var pluginsScanned = false
    /// The sessions, for the marker and name on posts to chats that watch several; weak, as
    /// the sessions hold this delivery as their observer.
    package weak var directory: Sessions?
    /// The guided choices open in sessions, which the chat desk answers.
    package let guided = GuidedAnswers()

    package init(
        home: Home, logger: Logger, host: PluginHost, bindings: ChatBindings, metrics: RelayMetrics, preferences: ChatPreferences,
        notify: NotifySettings
    ) {
        self.home = home
        self.logger = logger
        self.host = host
        self.bindings = bindings
        self.metrics = metrics
        self.preferences = preferences
        pings = LongRunPings(longerThan: notify.longRunSeconds)
    }

    /// Takes a messenger's limits from its hello, and the least live pace its section asks for.
    package func noteLimits(of plugin: String, _ hello: Hello, liveIntervalMs: Int? = nil) {
        traits.take(hello, of: plugin, liveIntervalMs: liveIntervalMs)
    }

    package func dialect(of messenger: String) -> Dialect { traits.dialect(messenger) }

    package func keepQueued(in file: StateFile<QueuedPromptRecord>, failures: StateFailures = StateFailures()) {
        queuedFile = file
        queuedFailures = failures
    }

    package func session(_ id: String, did news: SessionNews) async {
        switch news {
        case .runStarted(let run):
            metrics.runStarted()
            await guided.close(session: id)
            pings.runStarted(run.runID, at: .now)
            // Nothing to show yet: live views follow the run's changes (`session(_:changed:)`).
            // A completion-only chat gets one message at the end, no "typing…" before it.
            for binding in await bindings.chats(of: id) where await wants(binding, .typing) {
                await host.slot(binding.messenger)?.notify(.chatTyping, ChatTypingParams(target: binding.target))
            }
        case .runFinished(let run):
            live.removeValue(forKey: run.runID)
            let ended = ContinuousClock.now
            await deliverFinal(run, endedAt: ended, long: pings.runEnded(run.runID, at: ended))
        case .questionAsked(let asked):
            await ask(asked, in: id, icon: "❓")
        case .approvalAsked(let asked, let onlyTo):
            await ask(asked, in: id, icon: "", onlyTo: onlyTo)
        case .questionClosed(let question, let outcome):
            for binding in await bindings.chats(of: id) {
                await deliver(
                    binding.messenger, .chatQuestionClosed,
                    QuestionClosedParams(target: binding.target, sessionID: id, questionID: question.id, text: outcome))
            }
        case .notice(let kind, let text):
            await postNotice(kind, text, to: id)
        case .runCutOff(let text):
            await postNotice("error", text, to: id, want: .final)
        case .exited(let reason):
            logger.notice("session \(id) exited: \(reason)")
            await postNotice("error", "pi exited: \(Redactor.redact(reason)). The next message restarts it.", to: id)
            await dropQueued(in: id, because: "pi exited before it reached your queued message")
        case .promptTaken(let text):
            await promptTaken(text, in: id)
        case .queue(.keptAfterStop):
            await stillQueued(in: id)
        case .queue(.emptied(let why)):
            await dropQueued(in: id, because: why)
        case .promptEcho(let text, let origin):
            var targets: [Binding] = []
            for binding in await bindings.chats(of: id) where binding.key != origin {
                if await wants(binding, .progress) { targets.append(binding) }
            }
            guard !targets.isEmpty else { return }
            // The prompt as sent; each messenger marks an echo its own way (Discord: "▶ USER: ").
            let shown = await redacted(text)
            for binding in targets {
                await deliver(
                    binding.messenger, .chatPost,
                    await labeled(ChatPostParams(target: binding.target, kind: .echo, sessionID: id, text: shown), for: binding))
            }
        }
    }

    /// A notice to every chat of the session that wants `want` (progress, or what stands in for
    /// a final), rendered once per dialect among them.
    private func postNotice(_ kind: String, _ text: String, to sessionID: String, want: DeliveryWant = .progress) async {
        var lines: [Dialect: String] = [:]
        for binding in await bindings.chats(of: sessionID) where await wants(binding, want) {
            let dialect = dialect(of: binding.messenger)
            if lines[dialect] == nil { lines[dialect] = await notice(kind, text, dialect: dialect) }
            await deliver(
                binding.messenger, .chatPost,
                await labeled(ChatPostParams(target: binding.target, kind: .notice, sessionID: sessionID, text: lines[dialect]), for: binding))
        }
    }

    /// A notice line as the formatter renders it (redacted); a plain fallback without it.
    func notice(_ kind: String, _ text: String, dialect: Dialect) async -> String {
        if let line = await format(.formatNotice, FormatNoticeParams(notice: NoticeKind(wireName: kind), text: text, dialect: dialect)) {
            return line.text
        }
        return dialect.escape((kind == "error" || kind == "extension-error" || kind == "warning" ? "⚠️ " : "ℹ️ ") + Redactor.redact(text))
    }

    /// Everything that leaves the machine is masked for secret shapes by the formatter first;
    /// without one, the daemon's own redactor still masks known secret values.
    package func redacted(_ text: String) async -> String {
        if let masked = await format(.formatRedact, FormattedText(text: text)) { return masked.text }
        return Redactor.redact(text)
    }

    /// A question with its buttons, redacted, to the session's chats (or the one named) that are
    /// not paused.
    package func ask(_ asked: PendingQuestion, in sessionID: String, icon: String, onlyTo: String? = nil) async {
        let text = await redacted(icon + (icon.isEmpty ? "" : " ") + asked.title + (asked.message.map { "\n" + $0 } ?? ""))
        var question = asked.post
        question.title = await redacted(asked.title)
        if let message = asked.message { question.message = await redacted(message) }
        // The agent is blocked until someone answers: whoever asked is pinged where they asked.
        for binding in await bindings.chats(of: sessionID) where onlyTo == nil || binding.key == onlyTo {
            guard await wants(binding, .questions) else { continue }
            let params = ChatPostParams(
                target: binding.target, kind: .question, sessionID: sessionID, text: text, question: question,
                mentionUser: await mention(in: binding, for: sessionID))
            await deliver(binding.messenger, .chatPost, await labeled(params, for: binding))
        }
    }

    /// Queues an acknowledged delivery in the messenger's outbox. Awaited in place, so the
    /// deliveries for one chat keep the order in which sessions produced them.
    package func deliver<Params>(_ messenger: String, _ method: DeliverMethod<Params>, _ params: Params) async {
        await pluginsFound()
        guard let slot = await host.slot(messenger) else {
            logger.warning("no plugin \(messenger) to deliver \(method.name.rawValue) to")
            discardSpooled(params)
            return
        }
        do { try await slot.deliver(method, params) } catch {
            logger.error("cannot queue \(method.name.rawValue) for \(messenger): \(error)")
            discardSpooled(params)
        }
    }

    /// A post that will not go (no such plugin, its outbox full): the spool copies made for it
    /// alone go too (protocol §8), or each one refused would stay for good.
    private func discardSpooled<Params>(_ params: Params) {
        guard let post = params as? ChatPostParams else { return }
        removeSpooled(post.files.map(\.path))
    }

    // MARK: Final answers

    private func deliverFinal(_ run: RunRecord, endedAt: ContinuousClock.Instant, long: Bool) async {
        let targets = await bindings.chats(of: run.sessionID)
        guard !targets.isEmpty else { return }
        var shownTo: [Binding] = []
        // Rendered once for the chats that would get the same answer.
        var finals: [RenderKey: FormatFinalResult] = [:]
        let snapshot = run.view
        for binding in targets {
            // A paused chat is told nothing (a guided choice neither); `/resume` sums up what it missed.
            guard await wants(binding, .final) else { continue }
            let mode = await preferences.progress(binding.key)
            let mentionUser = long ? await mention(in: binding, for: run.sessionID) : nil
            let label = await label(binding)
            // Room for the session's label on the first chunk.
            // Measured as it is sent, escaped (`&` is five units in Slack's mrkdwn).
            let dialect = dialect(of: binding.messenger)
            let key = RenderKey(
                dialect: dialect, detail: mode == .verbose ? .verbose : .normal,
                limit: traits.messageLength(binding.messenger) - (label.map { dialect.escape($0).utf16.count + 1 } ?? 0))
            let rendered: FormatFinalResult
            if let known = finals[key] {
                rendered = known
            } else {
                rendered =
                    await format(.formatFinal, FormatRunParams(run: snapshot, limit: key.limit, dialect: key.dialect, detail: key.detail))
                    ?? FormatFinalResult(messages: Self.plainFinal(run.text, limit: key.limit, dialect: key.dialect))
                finals[key] = rendered
            }
            var chunks = rendered.messages
            // Each chat's plugin posts and then removes its own copy of a file.
            var files: [PostedFile] = []
            for file in rendered.files {
                let path = home.spoolDir + "/\(run.runID)-\(UUID().uuidString.prefix(8))-\(file.filename)"
                do { try AtomicFile.writeOrThrow(Array(file.text.utf8), to: path) } catch {
                    // A full disk: the preview alone would lose the rest of the answer. Posted
                    // whole in messages instead, as without a formatter.
                    logger.error("\(error): the answer goes to the chat whole, in messages")
                    for written in files { try? FileManager.default.removeItem(atPath: written.path) }
                    files = []
                    chunks = Self.plainFinal(run.text, limit: key.limit, dialect: key.dialect)
                    break
                }
                files.append(PostedFile(path: path, filename: file.filename))
            }
            if let label, !chunks.isEmpty { chunks[0] = key.dialect.escape(label) + "\n" + chunks[0] }
            if mode == .completionOnly {
                await deliverCompletion(run, chunks: chunks, files: files, to: binding, mentionUser: mentionUser)
            } else {
                await deliver(
                    binding.messenger, .chatPost,
                    ChatPostParams(
                        target: binding.target, kind: .final, sessionID: run.sessionID, runID: run.runID, chunks: chunks, files: files,
                        mentionUser: mentionUser))
                // The answer was cut to a preview: the rest is a button away.
                if !files.isEmpty { await offerFullAnswer(run, to: binding, parts: chunks.count) }
            }
            metrics.answerOut(messenger: binding.messenger)
            metrics.hop(.piToMessenger, .now - endedAt)
            shownTo.append(binding)
        }
        await offerChoice(run, to: shownTo)
    }

    /// A final answer without the formatter: split plainly, known secrets masked.
    package static func plainFinal(_ text: String, limit: Int, dialect: Dialect) -> [String] {
        let text = Redactor.redact(text)
        return PlainSplit.escapedChunks(text.isEmpty ? "(no text)" : text, limit: limit, escape: dialect.escape)
    }

    /// Until the plugin folders are first scanned no plugin is known: news from a session
    /// restored at start waits for them instead of being dropped. Remembered, so the hot path
    /// asks the host only once.
    private func pluginsFound() async {
        guard !pluginsScanned else { return }
        await host.firstScan()
        pluginsScanned = true
    }

    /// Asks the formatter plugin; nil when there is none or it fails (the caller falls back).
    package func format<Params, Result>(_ method: RequestMethod<Params, Result>, _ params: Params) async -> Result? {
        await pluginsFound()
        guard let formatter = await host.plugin(forRole: "formatter") else { return nil }
        metrics.rendered(method.name.rawValue)
        do { return try await formatter.request(method, params, timeout: .seconds(20)) } catch {
            logger.warning("formatter \(method.name.rawValue) failed: \(error)")
            return nil
        }
    }
}
