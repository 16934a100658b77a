import FoundationEssentials
import Logging
import PiRelaySDK

/// The command layer shared by every messenger, and the daemon's side of the plugin protocol:
/// who may talk, which session a chat is bound to, what each chat message or command does, and
/// each plugin's welcome.
package actor ChatDesk: PluginRouter {
    /// The home, where `/new` starts by default, and `chat:` in config.yaml.
    package let settings: ChatDeskSettings
    package let logger: Logger
    /// Each plugin's config section, checked against its schema at its hello.
    package let sections: PluginSections
    package let host: PluginHost
    package let sessions: Sessions
    package let bindings: ChatBindings
    package let delivery: ChatDelivery
    package let prompter: PromptSender
    package let status: DaemonStatus
    package let approvalLog: ApprovalLog
    /// Who may talk: the configured allowlists merged with the paired users.
    package let pairing: PairingDesk
    /// Each chat's progress mode, pause and mentions.
    package let preferences: ChatPreferences
    /// Scheduled prompts (`/schedule`).
    package let schedules: Schedules
    private var handledMessages: HandledMessages
    /// Repeats of a message still being handled, waiting for its answer.
    private var repeats: [String: [CheckedContinuation<ChatMessageResult, any Error>]] = [:]
    /// And the answers for repeats that come after the handling.
    private var answers = RecentAnswers()
    /// Who answers in shared rooms; holds when each room was last told how to pick a machine.
    var roomRule: SharedRoomRule

    package init(
        home: Home, logger: Logger, sections: PluginSections, defaultCwd: String?, host: PluginHost, sessions: Sessions,
        bindings: ChatBindings, delivery: ChatDelivery, prompter: PromptSender, status: DaemonStatus, approvalLog: ApprovalLog,
        pairing: PairingDesk, preferences: ChatPreferences, chatSettings: ChatSettings, schedules: Schedules,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.preferences = preferences
        self.schedules = schedules
        settings = ChatDeskSettings(home: home, newSessionFolder: defaultCwd ?? environment["HOME"], chat: chatSettings)
        self.logger = logger
        self.sections = sections
        self.host = host
        self.sessions = sessions
        self.bindings = bindings
        self.delivery = delivery
        self.prompter = prompter
        self.status = status
        self.approvalLog = approvalLog
        self.pairing = pairing
        roomRule = SharedRoomRule(machine: sessions.machine)
        handledMessages = HandledMessages(path: home.stateDir + "/chat-messages.json", logger: logger)
    }

    package func handle(plugin: String, method: String, params: JSONValue) async throws -> JSONValue {
        if let shared = try await asSharedChat(plugin: plugin, method: MethodName(rawValue: method), params: params) { return shared }
        switch MethodName(rawValue: method) {
        case .relayStatus:
            // With this machine's own allowlists, which the federation publishes to the others.
            var answer = await status.json()
            answer["allowed"] = .object(
                await pairing.ownAllowlists(messengers: sections.names).mapValues { .array($0.map { .string($0) }) })
            answer["instance"] = .string(status.instance)
            // Users revoked on a shared bot, for every machine (`Revocations`).
            let revocations = await pairing.revocationStatus
            answer["revocations"] = revocations.made.json
            answer["revocationsApplied"] = JSONValue(revocations.applied)
            return answer
        case .federationReceived:
            return try await received(try ForwardedRequest(json: params), from: plugin)
        case .federationDeliver:
            return try await deliverForwarded(try ForwardedDelivery(json: params), from: plugin)
        case .messengerCursor:
            return try await storeCursor(IngressCursor(messenger: plugin, position: try IngressCursor(json: params).position)).json
        case .chatMessage:
            let message = try ChatMessageParams(json: params)
            let result = try await chatMessageOnce(plugin: plugin, params: message)
            // The receiver removes the spool files it was handed (protocol §8). A prompt's were
            // read and removed by the attachments plugin; a message that prompted nothing (a
            // command's caption, an unbound or paused chat, a repeat) leaves its files to us.
            // Not after a failure: the messenger hands the message over again, files and all.
            delivery.discardSpooled(message.attachments)
            return result.json
        case .chatCommand:
            return try await chatCommand(plugin: plugin, params: try ChatCommandParams(json: params)).json
        case .chatAnswer:
            return try await chatAnswer(plugin: plugin, params: try ChatAnswerParams(json: params)).json
        case .chatBind:
            return try await chatBind(plugin: plugin, params: try ChatBindParams(json: params)).json
        case .chatPair:
            // The one request taken from users not on the allowlist: pairing is how they get on it.
            var claim = try ChatPairParams(json: params)
            claim.chat = claim.chat.from(plugin: plugin)
            return await pairing.claim(claim).json
        default:
            throw RemoteError.methodNotFound(method)
        }
    }

    package func notification(plugin: String, method: String, params: JSONValue) async {
        switch MethodName(rawValue: method) {
        case .federationMachines:
            // Only the plugin that holds the role speaks for the federation.
            guard await isFederation(plugin) else {
                logger.warning("plugin \(plugin) sent federation.machines without the federation role; ignored")
                return
            }
            let report: FederationReport
            do { report = try FederationReport(json: params) } catch {
                logger.warning("plugin \(plugin): a federation.machines that does not read: \(error)")
                return
            }
            status.machines.update(report)
            await pairing.federationReported(report, published: status.machines.allowlists(of: sharedMessengers))
        case .federationIngress:
            guard await isFederation(plugin), let change = try? IngressChange(json: params) else {
                logger.warning("plugin \(plugin): a federation.ingress not taken")
                return
            }
            await ingressChanged(change)
        default:
            logger.debug("plugin \(plugin): notification \(method)")
        }
    }

    package func welcome(plugin: String, hello: Hello) async throws(ConfigError) -> Welcome {
        let (checked, isNew) = try sections.check(plugin: plugin, hello: hello)
        if isNew {
            for warning in checked.warnings { logger.warning("\(warning)") }
            for note in checked.notes { logger.notice("not configured: \(note)") }
        }
        return Welcome.daemon(
            plugin: plugin, config: checked.section, home: settings.home, sessions: await sessions.list(),
            bindings: await bindings.summaries(messenger: plugin), allowedUsers: await pairing.allowedUsers(messenger: plugin),
            newSessionFolder: settings.newSessionFolder, ingress: sharedIngress(of: plugin))
    }

    package func pluginReady(plugin: String, hello: Hello) async {
        await delivery.noteLimits(of: plugin, hello, liveIntervalMs: sections.section(plugin)?["liveIntervalMs"]?.intValue)
        if sharedMessengers.contains(plugin) {
            await delivery.noteLimits(
                of: RemoteChannel.sharedMessenger(plugin), hello, liveIntervalMs: sections.section(plugin)?["liveIntervalMs"]?.intValue)
        }
        if hello.roles.contains("messenger") {
            await bindConfiguredChannels(messenger: plugin, hello: hello)
            await delivery.messengerReady(plugin)
        }
    }

    // MARK: Chat requests

    /// `chat.message` once per message id: a messenger restarted after a crash hands over again
    /// what it had in flight, and a repeat must not prompt pi twice (it is `ignored`). The id is
    /// saved before pi is prompted, not after: a daemon killed in between loses that one prompt
    /// rather than running it twice (a prompt can run commands). That window can be long (pi
    /// starting, a compaction, a voice note transcribed), so the id stays in hand until pi took
    /// it: the repeat of one cut off by a killed daemon tells the chat to send it again, rather
    /// than being dropped without a word. A handling that
    /// failed is forgotten, so the messenger's retry is acted on. A repeat that comes while the
    /// message is still handled (a `/compact` outlasting a messenger's restart) waits for its
    /// answer and carries it: the first answer goes to the instance that is gone.
    private func chatMessageOnce(plugin: String, params: ChatMessageParams) async throws -> ChatMessageResult {
        guard let id = params.messageID, !id.isEmpty else {
            return try await chatMessage(plugin: plugin, params: params)
        }
        let key = plugin + ":" + id
        // Before the handled set, which keeps only the newest ids: one pushed out while it is
        // still handled must not start a second handling (and drop the first one's waiters).
        if repeats[key] != nil {
            logger.info("chat message \(id) from \(plugin) is being handled; its repeat gets the answer")
            return try await withCheckedThrowingContinuation { repeats[key, default: []].append($0) }
        }
        guard handledMessages.insert(key) else {
            if handledMessages.wasCutOff(key) {
                saveHandledMessages()
                logger.warning("chat message \(id) from \(plugin) was in hand when pi-relayd stopped; the chat is told, it is not run again")
                return ChatMessageResult(status: .refused, reply: Reply(Self.cutOffNote))
            }
            if let answer = answers.answer(for: key) {
                logger.info("chat message \(id) from \(plugin) was handled before; its repeat gets the answer again")
                return answer
            }
            logger.info("chat message \(id) from \(plugin) was handled before; not again")
            return ChatMessageResult(status: .ignored)
        }
        saveHandledMessages()
        repeats[key] = []
        let outcome: Result<ChatMessageResult, any Error>
        do {
            let result = try await chatMessage(plugin: plugin, params: params)
            outcome = .success(result)
            answers.keep(result, for: key)
            handledMessages.done(key)
            saveHandledMessages()
        } catch {
            handledMessages.remove(key)
            saveHandledMessages()
            outcome = .failure(error)
        }
        for waiting in repeats.removeValue(forKey: key) ?? [] { waiting.resume(with: outcome) }
        return try outcome.get()
    }

    /// A message whose handling a stopped daemon cut off: it may have waited for pi (to start, to
    /// finish compacting, for its attachments) and never reached it. Run again, it could run twice.
    static let cutOffNote =
        "⚠️ pi-relayd restarted while this message was waiting to reach pi, so it may not have. If no answer to it comes, send it again."

    /// A failed save is a problem in `status` until one succeeds: a daemon killed meanwhile may
    /// act on a message a messenger hands over again.
    private func saveHandledMessages() {
        let file = "chat-messages.json"
        do {
            try handledMessages.save()
            status.stateFailures.saved(file)
        } catch {
            if status.stateFailures.failed(file, error) { logger.warning("cannot save the handled chat messages: \(error)") }
        }
    }

    private func chatMessage(plugin: String, params: ChatMessageParams) async throws -> ChatMessageResult {
        let arrival = PromptSender.Arrival(messenger: plugin, at: .now)
        let chat = params.chat.from(plugin: plugin)
        guard await allowed(chat) else {
            logger.warning("refused a message from unlisted user \(chat.user) on \(plugin)")
            return ChatMessageResult(status: .refused, reply: .notAuthorized)
        }
        let text = params.text
        let attachments = params.attachments
        var command = ChatCommand.parse(text)
        switch await federationRoute(command, chat: chat) {
        case .asUsual: break
        case .here(let rewritten): command = rewritten
        case .remote(let machine, let rewritten):
            var forwarded = params
            if let rewritten { forwarded.text = rewritten }
            return await forwardMessage(forwarded, chat: chat, to: machine)
        case .unreachable(let reply):
            return ChatMessageResult(status: .refused, reply: reply)
        }
        switch await inRoom(command, chat: chat) {
        case .asUsual: break
        case .command(let command): return ChatMessageResult(status: .command, reply: try await run(command, chat: chat))
        case .reply(let reply): return ChatMessageResult(status: command == nil ? .unbound : .command, reply: reply)
        case .silent: return ChatMessageResult(status: .ignored)
        }
        if let command {
            return ChatMessageResult(status: .command, reply: try await run(command, chat: chat))
        }
        guard let session = await boundSession(chat) else {
            let text =
                if let why = status.unstartedChannels.reason(chat.key) {
                    "config.yaml binds this channel to a session, but \(why). Fix it and restart pi-relayd, or /use <session>."
                } else if chat.dm {
                    "No session here yet. /sessions to pick one, /new <dir> to start one."
                } else {
                    "This channel is not bound to a session. /use <session> or /new <dir>."
                }
            let reply = Reply(text, ephemeral: true)
            return ChatMessageResult(status: .unbound, reply: reply)
        }
        if await preferences.pausedSince(chat.key) != nil {
            return ChatMessageResult(
                status: .paused, reply: Reply("This chat is paused: nothing was sent to \(await session.name). /resume first.", ephemeral: true))
        }
        // An open question takes a plain reply that answers it; other text is a prompt. A message
        // with files or a voice note is a prompt: taken as an answer (its caption, often empty),
        // the files were dropped without a word.
        if attachments.isEmpty, let question = await session.openQuestions.first, question.takesPlainReply(text, in: chat.key) {
            do {
                _ = try await session.answer(question.id, value: text, by: chat.who)
                return ChatMessageResult(status: .answered)
            } catch let error as RemoteError {
                return ChatMessageResult(status: .answered, reply: Reply(error.message, ephemeral: true))
            }
        }
        guard !text.isEmpty || !attachments.isEmpty else { return ChatMessageResult(status: .ignored) }
        if attachments.isEmpty, let guided = try await guidedMessage(text, chat: chat, session: session, arrival: arrival) { return guided }
        var inbound =
            if let prepared = Self.preparedAttachments { InboundContent(prepared) } else { await delivery.inbound(attachments, session: session) }
        if let refusal = await visionCheck(&inbound, text: text, attachments: attachments.count, session: session) { return refusal }
        // Voice notes' words are the prompt; voice notes alone that could not be heard send nothing.
        let spoken = ([text] + inbound.transcripts).filter { !$0.isEmpty }.joined(separator: "\n")
        if spoken.isEmpty, !attachments.isEmpty, attachments.allSatisfy(\.voice) {
            return ChatMessageResult(status: .refused, reply: Reply(inbound.notes.joined(separator: "\n"), ephemeral: true))
        }
        let said = spoken.isEmpty ? "(see attachments)" : spoken
        let prompt = senderPrefix(for: chat) + said + inbound.appendix
        let pending = await expectQueued(prompt, chat: chat, messageID: params.messageID, session: session)
        await delivery.noteRequester(chat, of: session.id)
        let outcome: PromptOutcome
        do {
            outcome = try await prompter.prompt(
                session, kind: .send, text: prompt, images: inbound.images, origin: chat.key,
                echo: PromptSender.echo(said, attachments: attachments.filter { !$0.voice }.map { $0.filename.isEmpty ? "file" : $0.filename }),
                arrival: arrival,
                fresh: true)
        } catch {
            if let pending { _ = await delivery.settleQueued(messageID: pending, in: session.id, queued: false) }
            guard let refusal = Self.refusal(error) else { throw error }
            return refusal
        }
        let status = ChatMessageResult.Status(rawValue: outcome.status.rawValue) ?? .prompted
        let notes = inbound.notes + (outcome.note.map { [$0] } ?? [])
        var acknowledgement = await busyAcknowledgement(
            status: status, notes: notes, pending: pending, session: session, slash: PromptSender.isSlash(prompt))
        if !inbound.transcripts.isEmpty {
            // The words as heard, shown in the chat: a mistake is seen before the answer comes.
            let heard = inbound.transcripts.map { "📝 " + $0 }
            acknowledgement.reply = Reply((heard + (acknowledgement.reply.map { [$0.text] } ?? [])).joined(separator: "\n"))
        }
        return acknowledgement
    }

    /// A prompt the session did not take, answered in the chat with the reason: a full queue, a
    /// terminal pi without a key, a terminal session not attached, a pi that would not start.
    /// Thrown to the messenger instead, a session's `unavailable` would read as "pi-relayd is
    /// stopping": the message would be kept, unanswered, and prompted again at the plugin's next
    /// start, however much later.
    static func refusal(_ error: any Error) -> ChatMessageResult? {
        let reason: String
        switch error {
        case let full as QueueFull: reason = full.description
        case let refused as PromptRefused: reason = refused.description
        case let remote as RemoteError: reason = "⚠️ " + Redactor.redact(remote.message)
        default: return nil
        }
        return ChatMessageResult(status: .refused, reply: Reply(reason))
    }

    private func chatCommand(plugin: String, params: ChatCommandParams) async throws -> Reply {
        let chat = params.chat.from(plugin: plugin)
        guard await allowed(chat) else {
            logger.warning("refused a command from unlisted user \(chat.user) on \(plugin)")
            return .notAuthorized
        }
        var command = try ChatCommand.from(name: params.name, args: params.args)
        switch await federationRoute(command, chat: chat) {
        case .asUsual: break
        case .here(let rewritten): command = rewritten
        case .remote(let machine, let text?):
            return await forwardMessage(ChatMessageParams(chat: params.chat, messageID: nil, text: text), chat: chat, to: machine).reply ?? Reply("")
        case .remote(let machine, nil):
            return await forwardCommand(params, chat: chat, to: machine)
        case .unreachable(let reply):
            return reply
        }
        switch await inRoom(command, chat: chat, slash: true) {
        case .asUsual: return try await run(command, chat: chat)
        case .command(let command): return try await run(command, chat: chat)
        case .reply(let reply): return reply
        case .silent:
            // A slash command reaches only the bot it was given to, which must answer it.
            return Reply("In this room another machine answers that; this bot is \(sessions.machine)'s.", ephemeral: true)
        }
    }

    private func chatAnswer(plugin: String, params: ChatAnswerParams) async throws -> Reply {
        let chat = params.chat.from(plugin: plugin)
        guard await allowed(chat) else { return .notAuthorized }
        guard let session = await sessions.session(id: params.sessionID) else {
            if let machine = machineRunning(params.sessionID), !RemoteChannel.isRemote(messenger: chat.messenger) || isHeldHere(chat) {
                return await forwardAnswer(params, chat: chat, to: machine)
            }
            return Reply("That question is no longer open.", ephemeral: true)
        }
        do {
            if params.cancelled {
                _ = try await session.cancel(params.questionID, by: chat.who)
                return .closedQuestion("Cancelled.")
            }
            let value = params.confirmed.map { $0 ? "yes" : "no" } ?? params.value ?? ""
            _ = try await session.answer(params.questionID, value: value, by: chat.who)
            return .closedQuestion("Answered: \(value)")
        } catch let error as RemoteError {
            return Reply(error.message, ephemeral: true)
        }
    }

    private func chatBind(plugin: String, params: ChatBindParams) async throws -> Reply {
        let chat = params.chat.from(plugin: plugin)
        guard await allowed(chat) else { return .notAuthorized }
        guard let session = await sessions.session(id: params.sessionID) else {
            throw RemoteError(code: .notFound, message: "no such session")
        }
        await bindings.bind(chat, to: params.sessionID)
        return Reply("This thread talks to \(await session.name).")
    }

    /// Asked at every request, so a pairing or a revocation counts from the next one. A chat let
    /// in is heard from (`ChatBindings.heard`): a direct conversation two users speak in (a web
    /// dashboard's session page) is neither's, and revoking one leaves it to the other.
    func allowed(_ chat: Chat) async -> Bool {
        // A chat another machine owns came through the federation plugin alone (no plugin's name
        // holds a `/`), after that machine's allowlist let its user through.
        if RemoteChannel.isRemote(messenger: chat.messenger) { return true }
        guard await pairing.allows(chat) else { return false }
        await bindings.heard(from: chat)
        return true
    }

    package func boundSession(_ chat: Chat) async -> PiSession? {
        guard let binding = await bindings.binding(chat.key) else { return nil }
        return await sessions.session(id: binding.sessionID)
    }

    /// Channels a messenger's config lists are bound to their session, which is created on first
    /// start: the entries its schema declares with an `id` and a `cwd` (Discord's and Slack's
    /// `channels`, Telegram's `chats`), or `channels` and `chats` when it declares none.
    private func bindConfiguredChannels(messenger: String, hello: Hello) async {
        let section = sections.section(messenger)
        let lists =
            hello.config?.keys.compactMap { key -> String? in
                guard case .entries(let entries) = key.type, entries.key == "id", entries.keys.contains(where: { $0.name == "cwd" }) else {
                    return nil
                }
                return key.name
            } ?? ["channels", "chats"]
        for channel in lists.flatMap({ section?[$0]?.arrayValue ?? [] }) {
            guard let id = channel["id"]?.stringValue ?? channel["id"]?.intValue.map(String.init), let cwd = channel["cwd"]?.stringValue
            else { continue }
            let key = "\(messenger):\(id)"
            if let binding = await bindings.binding(key), await sessions.session(id: binding.sessionID) != nil { continue }
            let name = channel["name"]?.stringValue
            var session: PiSession?
            if let name { session = await sessions.session(named: name) }
            if session == nil {
                do { session = try await sessions.create(cwd: cwd, name: name) } catch {
                    logger.error("channel \(id): cannot start its session in \(cwd): \(error)")
                    status.unstartedChannels.failed(key, "its session cannot start in \(cwd): \(error)")
                    continue
                }
            }
            status.unstartedChannels.started(key)
            if let session {
                await bindings.bind(Chat(messenger: messenger, channel: id, user: "config", dm: false), to: session.id)
                let sessionName = await session.name
                logger.info("channel \(id) on \(messenger) is bound to session \(sessionName)")
            }
        }
    }
}
