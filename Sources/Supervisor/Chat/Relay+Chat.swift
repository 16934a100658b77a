import Foundation
import PiRelaySDK

/// The command layer shared by every messenger: who may talk, which session a chat is bound to,
/// and what each chat command does.
extension Relay {
    func chatMessage(plugin: String, params: ChatMessageParams) async throws -> ChatMessageResult {
        let chat = params.chat.from(plugin: plugin)
        guard allowed(chat) else {
            logger.warning("refused a message from unlisted user \(chat.user) on \(plugin)")
            return ChatMessageResult(status: .refused, reply: .notAuthorized)
        }
        let text = params.text
        let attachments = params.attachments
        if let command = ChatCommand.parse(text) {
            return ChatMessageResult(status: .command, reply: try await run(command, chat: chat))
        }
        guard let session = await boundSession(chat) else {
            let reply = Reply(
                chat.dm
                    ? "No session here yet. /sessions to pick one, /new <dir> to start one."
                    : "This channel is not bound to a session. /use <session> or /new <dir>.", ephemeral: true)
            return ChatMessageResult(status: .unbound, reply: reply)
        }
        // An open question takes a plain reply that answers it; other text is a prompt.
        if let question = await session.openQuestions.first, question.takesPlainReply(text) {
            do {
                _ = try await session.answer(question.id, value: text, by: chat.who)
                return ChatMessageResult(status: .answered)
            } catch let error as RemoteError {
                return ChatMessageResult(status: .answered, reply: Reply(error.message, ephemeral: true))
            }
        }
        guard !text.isEmpty || !attachments.isEmpty else { return ChatMessageResult(status: .ignored) }
        let inbound = await inbound(attachments, session: session)
        let said = text.isEmpty ? "(see attachments)" : text
        let outcome = try await prompt(
            session, kind: "send", text: said + inbound.appendix, images: inbound.images, origin: chat.key,
            echo: Self.echo(said, attachments: attachments.map { $0.filename.isEmpty ? "file" : $0.filename }))
        let status = outcome["status"]?.stringValue.flatMap(ChatMessageResult.Status.init(rawValue:)) ?? .prompted
        return ChatMessageResult(status: status, reply: inbound.notes.isEmpty ? nil : Reply(inbound.notes.joined(separator: "\n")))
    }

    func chatCommand(plugin: String, params: ChatCommandParams) async throws -> Reply {
        let chat = params.chat.from(plugin: plugin)
        guard allowed(chat) else {
            logger.warning("refused a command from unlisted user \(chat.user) on \(plugin)")
            return .notAuthorized
        }
        return try await run(try ChatCommand.from(name: params.name, args: params.args), chat: chat)
    }

    func chatAnswer(plugin: String, params: ChatAnswerParams) async throws -> Reply {
        let chat = params.chat.from(plugin: plugin)
        guard allowed(chat) else { return .notAuthorized }
        guard let sessions, let session = await sessions.session(id: params.sessionID) else {
            return Reply("That question is no longer open.", ephemeral: true)
        }
        do {
            if params.cancelled {
                _ = try await session.cancel(params.questionID, by: chat.who)
                return Reply("Cancelled.", ephemeral: true)
            }
            let value = params.confirmed.map { $0 ? "yes" : "no" } ?? params.value ?? ""
            _ = try await session.answer(params.questionID, value: value, by: chat.who)
            return Reply("Answered: \(value)", ephemeral: true)
        } catch let error as RemoteError {
            return Reply(error.message, ephemeral: true)
        }
    }

    func chatBind(plugin: String, params: ChatBindParams) async throws -> Reply {
        let chat = params.chat.from(plugin: plugin)
        guard allowed(chat) else { return .notAuthorized }
        guard let session = await sessions?.session(id: params.sessionID) else {
            throw RemoteError(code: .notFound, message: "no such session")
        }
        bind(chat, to: params.sessionID)
        return Reply("This thread talks to \(await session.name).")
    }

    /// Copies a workspace file (through the attachments plugin's path guard) and posts it to the
    /// given chats. Returns the file name.
    func sendFile(_ s: PiSession, path: String, to targets: [Binding]) async throws -> String {
        guard let a = await host?.plugin(forRole: "attachments") else {
            throw RemoteError(code: .unavailable, message: "sending files needs the attachments plugin")
        }
        var name = path
        for b in targets {
            let maxBytes = uploadLimits[b.messenger] ?? (10 << 20)
            let spooled = try await a.request(
                .attachmentsOutbound, AttachmentsOutboundParams(cwd: await s.cwd, path: path, maxBytes: maxBytes), timeout: .seconds(60))
            name = spooled.filename
            await deliver(
                b.messenger, .chatPost,
                ChatPostParams(
                    target: b.target, kind: .file, sessionID: s.id, text: await redacted("📎 \(name) (\(spooled.size) bytes)"),
                    files: [PostedFile(path: spooled.path, filename: name)]))
        }
        return name
    }

    /// Posts image number `number` (1-based) of the session's last run, as a spool copy (the
    /// messenger deletes what it uploads).
    func sendImage(_ s: PiSession, number: Int, to targets: [Binding]) async throws -> String {
        let list = await s.images
        guard number >= 1, number <= list.count else {
            throw RemoteError(code: .notFound, message: "no image \(number); the last run produced \(list.count)")
        }
        let img = list[number - 1]
        for b in targets {
            let copy = home.spoolDir + "/\(UUID().uuidString.prefix(8))-\(img.filename)"
            guard let data = FileManager.default.contents(atPath: img.path), AtomicFile.write([UInt8](data), to: copy) else {
                throw RemoteError(code: .internal, message: "cannot copy \(img.filename) to the spool folder")
            }
            await deliver(
                b.messenger, .chatPost,
                ChatPostParams(
                    target: b.target, kind: .file, sessionID: s.id, text: "🖼 \(img.filename)",
                    files: [PostedFile(path: copy, filename: img.filename)]))
        }
        return img.filename
    }

    func allowed(_ chat: Chat) -> Bool {
        Allowlist(section: pluginConfig[chat.messenger], messenger: chat.messenger, environment: environment).allows(chat.user)
    }

    func boundSession(_ chat: Chat) async -> PiSession? {
        guard let b = bindings[chat.key] else { return nil }
        return await sessions?.session(id: b.sessionID)
    }

    func bind(_ chat: Chat, to sessionID: String) {
        bindings[chat.key] = Binding(
            key: chat.key, messenger: chat.messenger, channel: chat.channel, thread: chat.thread,
            sessionID: sessionID, user: chat.dm ? chat.user : nil, since: Date())
        saveBindings()
    }

    func unbind(key: String) {
        bindings.removeValue(forKey: key)
        saveBindings()
    }

    func saveBindings() {
        do {
            try bindingStore?.save(Array(bindings.values))
            bindingSaveError = nil
        } catch {
            if bindingSaveError == nil { logger.error("cannot save bindings: \(error); keeping them in memory") }
            bindingSaveError = "\(error)"
        }
    }

    /// Where a command's file or image goes: the chat's binding, or the chat itself when it is
    /// not bound (it named the session with `/to`, say).
    func replyBinding(_ chat: Chat, session: PiSession) -> Binding {
        bindings[chat.key]
            ?? Binding(
                key: chat.key, messenger: chat.messenger, channel: chat.channel, thread: chat.thread,
                sessionID: session.id, user: nil, since: Date())
    }

    /// Whether any chat watches the session; no list is built (this runs for every pi line).
    func isWatched(_ sessionID: String) -> Bool {
        bindings.values.contains { $0.sessionID == sessionID }
    }

    func chats(of sessionID: String) -> [Binding] {
        bindings.values.filter { $0.sessionID == sessionID }.sorted { $0.key < $1.key }
    }

    // MARK: Commands

    func run(_ cmd: ChatCommand, chat: Chat) async throws -> Reply {
        guard let sessions else { throw RemoteError(code: .unavailable, message: "pi-relayd is starting") }
        let current = await boundSession(chat)
        func needSession() throws -> PiSession {
            guard let current else { throw RemoteError(code: .notFound, message: "No session here. /sessions to pick one.") }
            return current
        }
        do {
            switch cmd {
            case .help:
                return Reply(
                    "Commands: /sessions, /use <session>, /new <dir> [name], /stop, /steer <text>, /followup <text>, /compact, /model [provider/model], /status, /end, /to <session> <text>, /cancel, /file <path>, /images, /image <n>, /disconnect. Anything else is a prompt.",
                    ephemeral: true)
            case .sessions:
                return await sessionList(chat: chat, current: current)
            case .use(let key):
                let s = try await sessions.resolve(key)
                bind(chat, to: s.id)
                await announcePresence(chat.messenger, s)
                return Reply("Watching \(await s.name).", ephemeral: true)
            case .new(let cwd, let name):
                guard let dir = cwd ?? defaultCwd ?? environment["HOME"] else {
                    throw RemoteError.invalidParams("/new needs a directory")
                }
                let s = try await sessions.create(cwd: dir, name: name)
                let sname = await s.name
                if chat.dm || chat.thread != nil {
                    bind(chat, to: s.id)
                    await announcePresence(chat.messenger, s)
                    return Reply("Started \(sname) in \(await s.cwd).")
                }
                var reply = Reply("Started \(sname) in \(await s.cwd).")
                reply.openThread = Reply.OpenThread(name: sname, sessionID: s.id)
                return reply
            case .stop:
                let s = try needSession()
                try await s.ensureRunning()
                _ = try await s.command("abort", [:], timeout: .seconds(60))
                return Reply("Stopped \(await s.name).")
            case .steer(let text):
                let s = try needSession()
                _ = try await prompt(s, kind: "steer", text: text, images: [], origin: chat.key)
                return Reply("Steering \(await s.name).", ephemeral: true)
            case .followUp(let text):
                let s = try needSession()
                _ = try await prompt(s, kind: "follow-up", text: text, images: [], origin: chat.key)
                return Reply("Queued for \(await s.name).", ephemeral: true)
            case .compact:
                let s = try needSession()
                try await s.ensureRunning()
                _ = try await s.command("compact", [:], timeout: .seconds(600))
                return Reply("Compacted \(await s.name).")
            case .model(let spec):
                let s = try needSession()
                guard let spec else { return Reply("\(await s.name) uses \(await s.model ?? "pi's default model").", ephemeral: true) }
                guard let slash = spec.firstIndex(of: "/") else {
                    throw RemoteError.invalidParams("use provider/model, e.g. anthropic/claude-sonnet-4-5")
                }
                try await s.ensureRunning()
                _ = try await s.command(
                    "set_model", ["provider": .string(String(spec[..<slash])), "modelId": .string(String(spec[spec.index(after: slash)...]))])
                await s.noteModel(spec)
                await announcePresence(chat.messenger, s)
                return Reply("\(await s.name) now uses \(spec).")
            case .status:
                let s = try needSession()
                return Reply(await statusText(s), ephemeral: true)
            case .end:
                let s = try needSession()
                let name = await s.name
                for b in chats(of: s.id) { unbind(key: b.key) }
                await sessions.end(s)
                return Reply("Ended \(name).")
            case .to(let key, let text):
                let s = try await sessions.resolve(key)
                let r = try await prompt(s, kind: "send", text: text, images: [], origin: chat.key)
                return Reply("Sent to \(await s.name) (\(r["status"]?.stringValue ?? "sent")).", ephemeral: true)
            case .cancel:
                let s = try needSession()
                guard let q = await s.openQuestions.first else { return Reply("No open question.", ephemeral: true) }
                _ = try await s.cancel(q.id, by: chat.who)
                return Reply("Cancelled.", ephemeral: true)
            case .disconnect:
                unbind(key: chat.key)
                await host?.slot(chat.messenger)?.notify(.chatPresence, PresenceParams(text: ""))
                return Reply("Disconnected: this chat watches no session now.", ephemeral: true)
            case .action(let id):
                return try await action(id, chat: chat)
            case .images:
                let s = try needSession()
                let list = await s.images
                if list.isEmpty { return Reply("No images from tools in the last run.", ephemeral: true) }
                var r = Reply(
                    list.enumerated().map { "\($0.offset + 1). \($0.element.filename) (from \($0.element.toolName))" }
                        .joined(separator: "\n"), ephemeral: true)
                r.actions = stride(from: 0, to: min(list.count, 25), by: 5).map { row in
                    (row..<min(row + 5, list.count, 25)).map { Reply.Action(id: "img:\(s.id):\($0 + 1)", label: "Send \($0 + 1)", style: "primary") }
                }
                return r
            case .image(let n):
                let s = try needSession()
                let name = try await sendImage(
                    s, number: n,
                    to: [replyBinding(chat, session: s)])
                return Reply("Sending \(name).", ephemeral: true)
            case .file(let path):
                let s = try needSession()
                let sent = try await sendFile(
                    s, path: path,
                    to: [replyBinding(chat, session: s)])
                return Reply("Sending \(sent).", ephemeral: true)
            }
        } catch let e as RemoteError {
            return Reply(e.message, ephemeral: true)
        }
    }

    private func action(_ id: String, chat: Chat) async throws -> Reply {
        let parts = id.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "use" where parts.count == 2: return try await run(.use(parts[1]), chat: chat)
        case "disconnect": return try await run(.disconnect, chat: chat)
        case "img" where parts.count == 3:
            guard let s = await sessions?.session(id: parts[1]), let n = Int(parts[2]) else {
                return Reply("That session is gone.", ephemeral: true)
            }
            let name = try await sendImage(s, number: n, to: [replyBinding(chat, session: s)])
            return Reply("Sending \(name).", ephemeral: true)
        case "stop" where parts.count == 2:
            guard let s = await sessions?.session(id: parts[1]) else { return Reply("That session is gone.", ephemeral: true) }
            _ = try await s.command("abort", [:], timeout: .seconds(60))
            return Reply("Stopped \(await s.name).")
        case "qa" where parts.count >= 4, "qc" where parts.count >= 3:
            guard let s = await sessions?.session(id: parts[1]) else { return Reply("That session is gone.", ephemeral: true) }
            let open = await s.openQuestions
            guard let q = open.first(where: { $0.id.hasPrefix(parts[2]) }) else {
                return Reply("That question was already answered or expired.", ephemeral: true)
            }
            if parts[0] == "qc" {
                _ = try await s.cancel(q.id, by: chat.who)
                return Reply("Cancelled.", ephemeral: true)
            }
            let value = parts[3...].joined(separator: ":")
            _ = try await s.answer(q.id, value: value, by: chat.who)
            return Reply("Answered.", ephemeral: true)
        default:
            return Reply("Unknown action.", ephemeral: true)
        }
    }

    private func sessionList(chat: Chat, current: PiSession?) async -> Reply {
        let all = await sessions?.all ?? []
        if all.isEmpty { return Reply("No sessions. Start one with /new <dir>.", ephemeral: true) }
        var lines: [String] = []
        var buttons: [Reply.Action] = []
        for s in all {
            let name = await s.name, state = await s.state, sid = s.id
            let watched = current?.id == sid
            lines.append("\(watched ? "👁 " : "")**\(name)** · \(state.name) · `\(await s.cwd)`")
            let style = watched ? "success" : (state == .idle ? "primary" : "secondary")
            buttons.append(.init(id: "use:\(sid)", label: String(((state == .busy ? "⏳ " : "") + name).prefix(Reply.maxLabelLength)), style: style))
        }
        var r = Reply(lines.joined(separator: "\n"), ephemeral: true)
        var rows: [[Reply.Action]] = stride(from: 0, to: min(buttons.count, 20), by: 5).map { Array(buttons[$0..<min($0 + 5, buttons.count, 20)]) }
        rows.append([.init(id: "disconnect", label: "Disconnect", style: "danger")])
        r.actions = rows
        return r
    }

    func statusText(_ s: PiSession) async -> String {
        let cwd = await s.cwd
        var lines = [
            "**\(await s.name)** (\(s.id))", "cwd: `\(cwd)`", "state: \(await s.state.name)",
            "model: \(await s.model ?? "pi's default")",
        ]
        if let branch = GitBranch.current(in: cwd) { lines.append("git branch: \(branch)") }
        let q = await s.openQuestions.count
        if q > 0 { lines.append("\(q) question(s) waiting") }
        return lines.joined(separator: "\n")
    }

    func announcePresence(_ messenger: String, _ s: PiSession) async {
        let text = "\(await s.name) (\(await s.model ?? "default model"))"
        await host?.slot(messenger)?.notify(.chatPresence, PresenceParams(text: text))
    }

    /// Channels a messenger's config lists (`channels: [{id, cwd, name}]`) are bound to their
    /// session, which is created on first start.
    func bindConfiguredChannels(messenger: String) async {
        guard let sessions else { return }
        for c in pluginConfig[messenger]?["channels"]?.arrayValue ?? [] {
            guard let id = c["id"]?.stringValue ?? c["id"]?.intValue.map(String.init), let cwd = c["cwd"]?.stringValue else { continue }
            let key = "\(messenger):\(id)"
            if let b = bindings[key], await sessions.session(id: b.sessionID) != nil { continue }
            let name = c["name"]?.stringValue
            var session: PiSession?
            if let name { session = await sessions.session(named: name) }
            if session == nil {
                do { session = try await sessions.create(cwd: cwd, name: name) } catch {
                    logger.error("channel \(id): cannot start its session in \(cwd): \(error)")
                    continue
                }
            }
            if let session {
                bind(Chat(messenger: messenger, channel: id, user: "config", dm: false), to: session.id)
                let sname = await session.name
                logger.info("channel \(id) on \(messenger) is bound to session \(sname)")
            }
        }
    }
}

enum GitBranch {
    static func current(in dir: String) -> String? {
        guard let head = try? String(contentsOfFile: dir + "/.git/HEAD", encoding: .utf8) else { return nil }
        let t = head.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.hasPrefix("ref: refs/heads/") { return String(t.dropFirst("ref: refs/heads/".count)) }
        return String(t.prefix(10)) + " (detached)"
    }
}
