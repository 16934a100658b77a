import FoundationEssentials
import PiRelaySDK

/// A terminal session: an interactive pi attached through the extension, which speaks pi's RPC
/// protocol over the control socket (docs/EXTENSION.md). The daemon never starts, resumes or
/// signals that pi; it only takes what the extension sends and sends it commands.
extension PiSession {
    /// How long a detached terminal session may take to come back before the chats hear it
    /// ended: pi's `/reload` and a reconnect detach for a blink.
    package static let terminalGrace: Duration = .seconds(3)

    package var isAttachedTerminal: Bool { terminal != nil && input != nil }

    /// The extension attached this terminal's pi (again). A newer connection takes over from an
    /// older one, which is let go: its end then belongs to a past generation and changes nothing.
    package func attachTerminal(_ registration: TerminalRegistration, link: TerminalLink) async -> Int {
        let older = input
        let generation = machine.lifecycle.attached()
        older?.finish()
        child.input = link
        child.pid = registration.pid
        reported.take(
            sessionFile: registration.sessionFile, model: registration.model, takesImages: registration.modelTakesImages,
            thinkingLevel: registration.thinkingLevel)
        machine.active(at: Date())
        record(type: "attached", ["pid": JSONValue(Int(registration.pid))])
        await services.persist(record)
        logger.info("session \(name) (\(id)): terminal pi attached (pid \(registration.pid))")
        return generation
    }

    /// Returns once this session's terminal link has ended, so that what the extension sent on
    /// it has been handled, or after `limit`. A switch in the terminal (`/new`) sends the old
    /// session's last news (the chat prompts pi dropped) on the old link, then attaches the new
    /// session on a new one: the chats move to the new session only after that news reached
    /// them. Polled: the old link ends within milliseconds, as the extension closes it first.
    package func terminalLinkEnded(within limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while input != nil, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Which messengers watch this session now, for the terminal's footer.
    package func tellWatchers(_ messengers: [String]) {
        (input as? TerminalLink)?.tellWatchers(messengers)
    }

    /// Lines from the extension, in order, as pi's stdout lines would come.
    package func terminalLine(_ line: [UInt8], generation: Int) async {
        await handle(.stdout(.line(line)), generation: generation)
    }

    /// The attach connection ended: pi was closed (a killed pi says no goodbye), it reloads, or
    /// the link broke. A run in flight is cut off as for a spawned pi that exits.
    package func terminalDetached(generation: Int) async {
        guard machine.lifecycle.isCurrent(generation) else { return }
        child.input = nil
        child.pid = nil
        let reason = machine.lifecycle.detached()
        await piGone(reason: reason, unanswered: "the terminal session detached before pi answered", questionsClosed: "the terminal session detached")
        record(type: "detached", [:])
        guard !machine.lifecycle.ending else { return }
        logger.info("session \(name): terminal pi detached")
        // Unstructured on purpose: a one-shot timer; a new attach in the meantime makes it moot.
        Task { [weak self] in
            try? await Task.sleep(for: Self.terminalGrace)
            await self?.announceTerminalEnded(generation)
        }
    }

    private func announceTerminalEnded(_ generation: Int) async {
        guard machine.lifecycle.isCurrent(generation), input == nil, !machine.lifecycle.ending else { return }
        logger.notice("session \(name): the terminal session ended")
        await tell(
            .notice(kind: "error", text: "The terminal session \(name) ended: pi was closed in the terminal. /forget removes it from /sessions."))
    }

    /// The lines only the extension sends. Returns false for a type that is not one of them.
    package func terminalNews(_ type: String, line: [UInt8]) async -> Bool {
        guard ["terminal_input", "extension_ui_closed", "session_info"].contains(type) || TerminalPromptNews.types.contains(type) else {
            return false
        }
        guard let message = try? JSONValue.parse(bytes: line) else { return true }
        if let news = TerminalPromptNews(type: type, message) {
            // Chat prompts a session switch dropped or carried along: the chats hear which.
            record(
                type: news.kind.rawValue,
                ["reason": .string(news.reason.rawValue), "texts": .array(news.texts.map { .string(String($0.prefix(200))) })])
            await services.persist(record)
            await tell(.notice(kind: news.noticeKind, text: news.text))
            return true
        }
        switch type {
        case "terminal_input":
            // Typed at the terminal: every chat watching sees it (`origin` matches no chat).
            guard let text = message["text"]?.stringValue, !text.isEmpty else { return true }
            machine.active(at: Date())
            machine.promptOrigin = "terminal"
            record(type: "terminal_input", ["text": .string(String(text.prefix(200)))])
            await tell(.promptEcho(text: text, origin: "terminal"))
        case "extension_ui_closed":
            // The terminal answered (or dismissed it) first, the run was aborted, or the question
            // moved to the terminal because no chat watched any more: the chats' copy closes.
            guard let questionID = message["id"]?.stringValue, let question = questions.close(questionID) else { return true }
            let by = message["by"]?.stringValue
            let outcome: String
            switch by {
            case "abort":
                record(type: "question_cancelled", ["id": .string(questionID), "by": "abort"])
                outcome = "closed: the run was stopped before anyone answered"
            case "moved":
                record(type: "question_cancelled", ["id": .string(questionID), "by": "moved"])
                outcome = "asked in the terminal instead: no chat was watching"
            default:
                record(type: "question_answered", ["id": .string(questionID), "by": "terminal"])
                outcome = "answered in the terminal"
            }
            await services.persist(record)
            await tell(.questionClosed(question, outcome: outcome))
        default:
            reported.take(
                sessionFile: message["sessionFile"]?.stringValue, model: message["model"]?.stringValue,
                takesImages: TerminalRegistration.takesImages(message["modelInput"]), thinkingLevel: message["thinkingLevel"]?.stringValue)
            await services.persist(record)
        }
        return true
    }
}
