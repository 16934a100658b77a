import FoundationEssentials
import PiRelaySDK

/// What each chat command does (`/use`, `/new`, `/stop`, buttons' actions…).
extension ChatDesk {
    package func run(_ command: ChatCommand, chat: Chat) async throws -> Reply {
        let current = await boundSession(chat)
        func needSession() throws -> PiSession {
            guard let current else { throw RemoteError(code: .notFound, message: "No session here. /sessions to pick one.") }
            return current
        }
        // A paused chat sends nothing (README, /pause): its answer would not come back here.
        func refusedWhilePaused(_ session: PiSession) async -> Reply? {
            guard await preferences.pausedSince(chat.key) != nil else { return nil }
            return Reply("This chat is paused: nothing was sent to \(await session.name). /resume first.", ephemeral: true)
        }
        do {
            switch command {
            case .help:
                return await helpReply(messenger: chat.messenger)
            case .sessions:
                return await sessionList(chat: chat)
            case .use(let key):
                let session = try await resolve(key, chat: chat)
                await bindings.watch(chat, session.id)
                await announcePresence(chat.messenger, session)
                return Reply("Watching \(await session.name).", ephemeral: true)
            case .new(let cwd, let name):
                guard let dir = cwd ?? settings.newSessionFolder else {
                    throw RemoteError.invalidParams("/new needs a directory")
                }
                let session = try await sessions.create(cwd: dir, name: name)
                let sname = await session.name
                if chat.dm || chat.thread != nil {
                    await bindings.watch(chat, session.id)
                    await announcePresence(chat.messenger, session)
                    return Reply("Started \(sname) in \(session.cwd).")
                }
                var reply = Reply("Started \(sname) in \(session.cwd).")
                reply.openThread = Reply.OpenThread(name: sname, sessionID: session.id)
                return reply
            case .stop:
                let session = try needSession()
                try await session.ensureRunning()
                _ = try await session.command(.abort, timeout: .seconds(60))
                return Reply("Stopped \(await session.name).")
            case .steer(let text):
                let session = try needSession()
                if let refusal = await refusedWhilePaused(session) { return refusal }
                let result = try await prompter.prompt(session, kind: .steer, text: text, images: [], origin: chat.key)
                if let note = result.note { return Reply("Queued as follow-up for \(await session.name). \(note)", ephemeral: true) }
                // Nothing was running to steer: it runs as a prompt.
                if result.status == .prompted { return Reply("\(await session.name) was idle: sent as a prompt.", ephemeral: true) }
                return Reply("Steering \(await session.name).", ephemeral: true)
            case .followUp(let text):
                let session = try needSession()
                if let refusal = await refusedWhilePaused(session) { return refusal }
                let result = try await prompter.prompt(session, kind: .followUp, text: text, images: [], origin: chat.key)
                if result.status == .prompted { return Reply("\(await session.name) was idle: sent as a prompt.", ephemeral: true) }
                return Reply("Queued for \(await session.name).", ephemeral: true)
            case .compact:
                let session = try needSession()
                try await session.ensureRunning()
                _ = try await session.command(.compact(), timeout: .seconds(600))
                return Reply("Compacted \(await session.name).")
            case .model(let spec):
                let session = try needSession()
                guard let spec else { return Reply("\(await session.name) uses \(await session.model ?? "pi's default model").", ephemeral: true) }
                guard let slash = spec.firstIndex(of: "/") else {
                    throw RemoteError.invalidParams("use provider/model, e.g. anthropic/claude-sonnet-4-5")
                }
                try await session.ensureRunning()
                _ = try await session.command(.setModel(provider: String(spec[..<slash]), modelID: String(spec[spec.index(after: slash)...])))
                await session.noteModel(spec)
                // pi's state says what the new model takes (images or not).
                try? await session.refreshState()
                await announcePresence(chat.messenger, session)
                return Reply("\(await session.name) now uses \(spec).")
            case .thinking(let level):
                let session = try needSession()
                guard let level else {
                    return Reply("\(await session.name) thinks at \(await session.thinkingLevel ?? "pi's default level").", ephemeral: true)
                }
                try await session.ensureRunning()
                _ = try await session.command(.setThinkingLevel(level))
                // pi clamps the level to what the model supports: say what it chose.
                try? await session.refreshState()
                return Reply("\(await session.name) now thinks at \(await session.thinkingLevel ?? level).")
            case .rename(let newName):
                let session = try needSession()
                let old = await session.name
                try await sessions.rename(session, to: newName)
                return Reply("Renamed \(old) to \(newName).")
            case .reset:
                let session = try needSession()
                try await session.ensureRunning()
                let response = try await session.command(.newSession, timeout: .seconds(120))
                guard !response.vetoed else { return Reply("\(await session.name) keeps its conversation: an extension in its pi said no.") }
                try? await session.refreshState()
                return Reply("\(await session.name) starts a new conversation.")
            case .status:
                let session = try needSession()
                return Reply(await statusText(session), ephemeral: true)
            case .end:
                let session = try needSession()
                let name = await session.name
                try await sessions.mayEnd(session)
                await SessionEnd(sessions: sessions, bindings: bindings, observer: delivery).end(
                    session, notice: ("warning", "⏹ \(name) was ended by \(chat.userName ?? chat.user) on \(chat.messenger)."), asking: chat.key)
                return Reply("Ended \(name).")
            case .approvals:
                let session = try needSession()
                let entries = await approvalLog.recent(session: session.id, limit: 10)
                guard !entries.isEmpty else { return Reply("No approval decisions for \(await session.name) yet.", ephemeral: true) }
                let lines = entries.map { entry in
                    let when = entry["time"]?.stringValue.map { String($0.prefix(19)).replacing("T", with: " ") } ?? "?"
                    return "\(when) \(entry["tool"]?.stringValue ?? "?"): \(entry["args"]?.stringValue ?? "") "
                        + "→ \(entry["decision"]?.stringValue ?? "?") by \(entry["by"]?.stringValue ?? "?") (rule \(entry["rule"]?.stringValue ?? "?"))"
                }
                return Reply("Approvals in \(await session.name), newest last:\n" + lines.joined(separator: "\n"), ephemeral: true)
            case .forget(let key):
                let session: PiSession
                if let key { session = try await resolve(key, chat: chat) } else { session = try needSession() }
                return try await forget(session, chat: chat)
            case .alias(let alias):
                return try await name(try needSession(), alias, chat: chat)
            case .to(let key, let text):
                let session = try await resolve(key, chat: chat)
                if let refusal = await refusedWhilePaused(session) { return refusal }
                let result = try await prompter.prompt(session, kind: .send, text: text, images: [], origin: chat.key)
                return Reply("Sent to \(await session.name) (\(result.status.rawValue)).", ephemeral: true)
            case .cancel:
                let session = try needSession()
                guard let question = await session.openQuestions.first else { return Reply("No open question.", ephemeral: true) }
                _ = try await session.cancel(question.id, by: chat.who)
                return Reply("Cancelled.", ephemeral: true)
            case .disconnect:
                await bindings.unbind(key: chat.key)
                await host.slot(chat.messenger)?.notify(.chatPresence, PresenceParams(text: ""))
                return Reply("Disconnected: this chat watches no session now.", ephemeral: true)
            case .action(let id):
                return try await action(id, chat: chat)
            case .images:
                let session = try needSession()
                let tools = await session.images.map { "\($0.filename) (from \($0.toolName))" }
                let list = tools + (await delivery.namedImages(session)).map { "\($0.named) (named in the answer)" }
                if list.isEmpty { return Reply("No images in the last run: none from tools, none named in its answer.", ephemeral: true) }
                var reply = Reply(list.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n"), ephemeral: true)
                reply.actions = stride(from: 0, to: min(list.count, 25), by: 5).map { row in
                    (row..<min(row + 5, list.count, 25)).map {
                        Reply.Action(id: "img:\(session.id):\($0 + 1)", label: "Send \($0 + 1)", style: "primary")
                    }
                }
                return reply
            case .image(let number):
                let session = try needSession()
                let name = try await delivery.sendImage(
                    session, number: number, to: [await bindings.replyBinding(chat, sessionID: session.id)])
                return Reply("Sending \(name).", ephemeral: true)
            case .file(let path, let caption):
                let session = try needSession()
                let sent = try await delivery.sendFile(
                    session, path: path, to: [await bindings.replyBinding(chat, sessionID: session.id)], caption: caption)
                return Reply("Sending \(sent).", ephemeral: true)
            case .sendImage(let path):
                let session = try needSession()
                guard NamedImages.isImage(path) else {
                    throw RemoteError.invalidParams("\(path) is no image (png, jpg, gif or webp): /file sends any file")
                }
                let sent = try await delivery.sendFile(
                    session, path: path, to: [await bindings.replyBinding(chat, sessionID: session.id)], image: true)
                return Reply("Sending \(sent).", ephemeral: true)
            case .progress, .pause, .resume, .mentions:
                return try await runPreference(command, chat: chat, session: current)
            case .recent, .summary, .full:
                return try await runLookBack(command, chat: chat, session: try needSession())
            case .schedule(let words):
                return try await runSchedule(words, chat: chat, session: current)
            }
        } catch let error as RemoteError {
            return Reply(Redactor.redact(error.message), ephemeral: true)
        } catch let refused as PromptRefused {
            return Reply(refused.description, ephemeral: true)
        }
    }

    private func action(_ id: String, chat: Chat) async throws -> Reply {
        let parts = id.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "use" where parts.count == 2: return try await run(.use(parts[1]), chat: chat)
        case "disconnect": return try await run(.disconnect, chat: chat)
        case "ga", "gb": return try await guidedAction(parts, chat: chat)
        case "img" where parts.count == 3:
            guard let session = await sessions.session(id: parts[1]), let number = Int(parts[2]) else {
                return Reply("That session is gone.", ephemeral: true)
            }
            let name = try await delivery.sendImage(session, number: number, to: [await bindings.replyBinding(chat, sessionID: session.id)])
            return Reply("Sending \(name).", ephemeral: true)
        case "stop" where parts.count == 2:
            guard let session = await sessions.session(id: parts[1]) else { return Reply("That session is gone.", ephemeral: true) }
            _ = try await session.command(.abort, timeout: .seconds(60))
            return Reply("Stopped \(await session.name).")
        case "full" where parts.count == 3:
            return try await fullAnswerButton(parts[1], runID: parts[2], chat: chat)
        case "qa" where parts.count >= 4, "qc" where parts.count >= 3:
            guard let session = await sessions.session(id: parts[1]) else { return Reply("That session is gone.", ephemeral: true) }
            let open = await session.openQuestions
            // A button carries a question id's start (Discord's custom ids are short); an empty
            // one names no question, not the first open one.
            guard !parts[2].isEmpty, let question = open.first(where: { $0.id.hasPrefix(parts[2]) }) else {
                return Reply("That question was already answered or expired.", ephemeral: true)
            }
            if parts[0] == "qc" {
                _ = try await session.cancel(question.id, by: chat.who)
                return .closedQuestion("Cancelled.")
            }
            let value = parts[3...].joined(separator: ":")
            _ = try await session.answer(question.id, value: value, by: chat.who)
            return .closedQuestion("Answered.")
        default:
            return Reply("Unknown action.", ephemeral: true)
        }
    }

    package func statusText(_ session: PiSession) async -> String {
        let cwd = session.cwd
        var lines = [
            "**\(await session.name)** (\(session.id))", "cwd: `\(cwd)`", "state: \(await session.state.name)",
            "model: \(await session.model ?? "pi's default")",
        ]
        if let branch = GitBranch.current(in: cwd) { lines.append("git branch: \(branch)") }
        let waiting = await session.openQuestions.count
        if waiting > 0 { lines.append("\(waiting) question(s) waiting") }
        return lines.joined(separator: "\n")
    }

    package func announcePresence(_ messenger: String, _ session: PiSession) async {
        let text = "\(await session.name) (\(await session.model ?? "default model"))"
        await host.slot(messenger)?.notify(.chatPresence, PresenceParams(text: text))
    }
}
