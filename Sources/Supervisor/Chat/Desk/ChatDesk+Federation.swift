import FoundationEssentials
import PiRelaySDK

/// Federation (docs/FEDERATION.md): a chat on this machine's bot drives another machine's
/// sessions. The chat picks a machine with `/use MACHINE SESSION` (or a session only one other
/// machine has); from then on its requests go to that machine through the federation plugin,
/// which runs them as a chat of its own (`MACHINE/MESSENGER`) and sends what its sessions say
/// back here for this machine's messenger to post.
extension ChatDesk {
    /// Where a request from a chat goes.
    package enum FederationRoute: Equatable {
        /// Not a federated chat's business: as in any chat.
        case asUsual
        /// Here, as this command (a `/use` or `/to` that named this machine).
        case here(ChatCommand)
        /// To another machine: the text to send there instead, or nil for the request as it came.
        case remote(machine: String, text: String?)
        /// To the machine the chat picked, which cannot be reached (the database is away): the
        /// reply that says so, and nothing is run here instead.
        case unreachable(Reply)
    }

    /// The route of a request (`command` nil for plain text) from a chat on this machine. Without
    /// a federation report, in a shared room, or for a chat another machine owns: as usual.
    package func federationRoute(_ command: ChatCommand?, chat: Chat) async -> FederationRoute {
        guard !isSharedRoom(chat), !RemoteChannel.isRemote(messenger: chat.messenger) || isHeldHere(chat) else { return .asUsual }
        guard let report = status.machines.current()?.report else {
            // Not joined yet (the daemon has just started): a chat that picked another machine
            // keeps its local binding, and its prompt would run here, in a session it left.
            return await routeWhileAway(command, chat: chat) { picked in
                "Machine \(picked) cannot be reached yet: this machine has not joined the federation (it is starting, or federation is not set up here)."
            }
        }
        if let since = report.unreachableSince {
            return await routeWhileAway(command, chat: chat) { picked in
                "Machine \(picked) cannot be reached: the federation's database is unreachable since \(since)."
            }
        }
        let others = Set(report.machines.map(\.name))
        let here = sessions.machine
        switch command {
        case .sessions?:
            return .asUsual
        case .use(let key)?:
            if let (machine, session) = Self.machineAndSession(key), machine == here || others.contains(machine) {
                await pick(machine, for: chat)
                return machine == here ? .here(.use(session)) : .remote(machine: machine, text: "/use \(session)")
            }
            // A number past this machine's sessions: the other machines' in `/sessions`' order.
            let local = await sessions.all.count
            if let number = Int(key), number > local {
                let numbered = report.machines.flatMap { machine in machine.sessions.map { (machine.name, $0.id) } }
                guard number - local <= numbered.count else { return .asUsual }
                let (machine, id) = numbered[number - local - 1]
                await pick(machine, for: chat)
                return .remote(machine: machine, text: "/use \(id)")
            }
            // A name: this machine's session if it has one, else the one other machine that has it.
            if (try? await resolve(key, chat: chat)) != nil {
                await pick(here, for: chat)
                return .asUsual
            }
            let having = report.machines.filter { machine in machine.sessions.contains { $0.name == key || $0.id == key } }
            guard having.count == 1, let machine = having.first?.name else { return .asUsual }
            await pick(machine, for: chat)
            return .remote(machine: machine, text: "/use \(key)")
        case .to(let key, let text)?:
            guard let (machine, session) = Self.machineAndSession(key, separators: ["/"]), machine == here || others.contains(machine) else {
                break
            }
            return machine == here ? .here(.to(session: session, text: text)) : .remote(machine: machine, text: "/to \(session) \(text)")
        default:
            break
        }
        guard let picked = await preferences.machine(chat.key), picked != here else { return .asUsual }
        guard others.contains(picked) else {
            return await routeWhileAway(command, chat: chat) { picked in
                "Machine \(picked) is not among the federation's machines now (it is off, or it left)."
            }
        }
        return .remote(machine: picked, text: nil)
    }

    /// The machine a chat picked cannot be reached (the database is away, this machine has not
    /// joined yet, or that machine is gone): the chat is told `why`, and its prompt or command is
    /// not run here instead, by a session it did not pick (in another folder, perhaps another
    /// project). `/sessions` and `/help` answer as usual, and `/use` of a session here or `/new`
    /// takes the chat back to this machine.
    private func routeWhileAway(_ command: ChatCommand?, chat: Chat, why: (String) -> String) async -> FederationRoute {
        let here = sessions.machine
        guard let picked = await preferences.machine(chat.key), picked != here else { return .asUsual }
        switch command {
        case .sessions?, .help?:
            return .asUsual
        case .new?:
            // A new session here brings the chat back here: with no session on this machine
            // to /use, a stale pick (federation taken out of config.yaml) held it for good.
            await pick(here, for: chat)
            return .asUsual
        case .use(let key)?:
            if let (machine, session) = Self.machineAndSession(key), machine == here {
                await pick(here, for: chat)
                return .here(.use(session))
            }
            if (try? await resolve(key, chat: chat)) != nil {
                await pick(here, for: chat)
                return .asUsual
            }
        default:
            break
        }
        return .unreachable(
            Reply(
                why(picked) + " Nothing was sent, and nothing ran here. /use a session on this machine (/sessions), or /new, to work here.",
                ephemeral: true))
    }

    /// Keeps the machine a chat picked; a shared messenger's chat's pick goes to the database
    /// too, for whichever machine holds the bot next.
    func pick(_ machine: String, for chat: Chat) async {
        await preferences.pick(machine, for: chat.key)
        guard RemoteChannel.isShared(messenger: chat.messenger), let federation = await host.plugin(forRole: "federation") else { return }
        do {
            let picked = ChatPicks(
                messenger: RemoteChannel.baseMessenger(chat.messenger), picks: [chat.key: machine], madeAt: Date().timeIntervalSince1970)
            try await federation.deliver(.federationPick, picked)
        } catch {
            logger.error("the pick of \(machine) for \(chat.key) is kept here only: the federation's outbox refused it: \(error)")
        }
    }

    /// What came of a forwarded request.
    package enum Forwarded {
        /// The other machine's result.
        case answered(JSONValue)
        /// Nothing came back: what to tell the chat.
        case unanswered(Reply)
        /// Another machine claimed the message first and routed it: nothing to do here.
        case claimedElsewhere
    }

    /// `laptop api` or `laptop/api`.
    private static func machineAndSession(_ key: String, separators: [Character] = [" ", "/"]) -> (String, String)? {
        for separator in separators {
            guard let index = key.firstIndex(of: separator) else { continue }
            let machine = String(key[..<index]), session = String(key[key.index(after: index)...]).trimmingInlineSpace()
            if !machine.isEmpty, !session.isEmpty { return (machine, session) }
        }
        return nil
    }

    /// Whether a chat of a shared messenger (`*/telegram`) came from this machine's own
    /// messenger (it holds the bot), rather than forwarded from another machine's.
    func isHeldHere(_ chat: Chat) -> Bool {
        RemoteChannel.isShared(messenger: chat.messenger) && status.machines.ingress(of: RemoteChannel.baseMessenger(chat.messenger))?.active == true
    }

    /// Whether `plugin` is the one that holds the federation role here: nothing else may speak
    /// for another machine.
    func isFederation(_ plugin: String) async -> Bool {
        await host.plugin(forRole: "federation")?.name == plugin
    }

    /// The other machine that lists session `id`, by the federation's last report.
    func machineRunning(_ id: String) -> String? {
        status.machines.current()?.report.machines.first { $0.sessions.contains { $0.id == id } }?.name
    }

    // MARK: Out: a local chat's request, to the machine that runs the session

    func forwardMessage(_ params: ChatMessageParams, chat: Chat, to machine: String) async -> ChatMessageResult {
        // Files are fetched here, where the chat is: a messenger's file link may hold the bot
        // token, and its spool paths mean nothing on another machine. What crosses is the
        // prompt's content, and each file's name, type and size for the chat's notes.
        var params = params
        var prepared: AttachmentsInboundResult?
        if !params.attachments.isEmpty {
            prepared = await delivery.prepared(params.attachments, for: "on \(machine)")
            params.attachments = params.attachments.map {
                AttachmentRef(filename: $0.filename, size: $0.size, contentType: $0.contentType, voice: $0.voice, seconds: $0.seconds)
            }
        }
        switch await forward(.chatMessage, params.json, chat: chat, to: machine, prepared: prepared) {
        case .answered(let result):
            return (try? ChatMessageResult(json: result)) ?? ChatMessageResult(status: .prompted)
        case .unanswered(let reply):
            return ChatMessageResult(status: .refused, reply: reply)
        case .claimedElsewhere:
            return ChatMessageResult(status: .ignored)
        }
    }

    func forwardCommand(_ params: ChatCommandParams, chat: Chat, to machine: String) async -> Reply {
        switch await forward(.chatCommand, params.json, chat: chat, to: machine) {
        case .answered(let result): return (try? Reply(json: result)) ?? Reply("")
        case .unanswered(let reply): return reply
        case .claimedElsewhere: return Reply("")
        }
    }

    func forwardAnswer(_ params: ChatAnswerParams, chat: Chat, to machine: String) async -> Reply {
        switch await forward(.chatAnswer, params.json, chat: chat, to: machine) {
        case .answered(let result): return (try? Reply(json: result)) ?? Reply("")
        case .unanswered(let reply): return reply
        case .claimedElsewhere: return Reply("")
        }
    }

    /// The other machine's result, or the reply that says it refused or did not answer (and so
    /// nothing was done there: the plugin withdraws a request nobody took in time).
    private func forward(
        _ method: MethodName, _ params: JSONValue, chat: Chat, to machine: String, prepared: AttachmentsInboundResult? = nil
    ) async -> Forwarded {
        guard let federation = await host.plugin(forRole: "federation") else {
            return .unanswered(Reply("The federation plugin is not running here: \(machine)'s sessions cannot be reached.", ephemeral: true))
        }
        let hello = await host.slot(RemoteChannel.baseMessenger(chat.messenger))?.hello
        // A shared messenger's message is claimed with the request that routes it.
        let claim = method == .chatMessage ? Self.routedClaim : nil
        let request = ForwardedRequest(
            machine: machine, messenger: chat.messenger, dialect: hello?.dialect, limits: hello?.limits ?? [:], method: method, params: params,
            claim: claim, prepared: prepared)
        do {
            // Longer than the plugin's own wait (the take, a withdrawal, the answer, each read up to
            // 5 s), so that its error, which says whether the request may have run, comes first.
            return .answered(try await federation.request(.federationForward, request, timeout: .seconds(40)))
        } catch let error as RemoteError where error.code == .claimedElsewhere {
            logger.info("chat message \(claim ?? "?") was taken by another machine of the federation; not here")
            return .claimedElsewhere
        } catch {
            logger.warning("forwarding \(method.rawValue) to \(machine): \(error)")
            // It answered, with a refusal: not a machine that is away.
            if let refusal = error as? RemoteError, refusal.code == .other("remote") {
                return .unanswered(Reply("Machine \(machine) refused: \(refusal.message)", ephemeral: true))
            }
            let known = status.machines.current()?.report.machines.first { $0.name == machine }
            let since = known.map { $0.online ? "" : " (offline since \($0.lastSeen))" } ?? ""
            let detail = (error as? RemoteError)?.message ?? "\(error)"
            return .unanswered(Reply("Machine \(machine) did not answer\(since): \(detail)", ephemeral: true))
        }
    }

    // MARK: In: another machine's chat, here

    /// A request from a chat another machine owns: run here as a chat of `MACHINE/MESSENGER`,
    /// whose posts the federation plugin carries back.
    func received(_ request: ForwardedRequest, from plugin: String) async throws -> JSONValue {
        guard await isFederation(plugin) else {
            throw RemoteError(code: .notAuthorized, message: "only the federation plugin forwards requests")
        }
        guard [.chatMessage, .chatCommand, .chatAnswer].contains(request.method) else { throw RemoteError.methodNotFound(request.method.rawValue) }
        // Files cross as their prompt content (`prepared`), made where the chat is: a path or a
        // link named here would be read here.
        let files = request.params["attachments"]?.arrayValue ?? []
        guard files.allSatisfy({ $0["path"] == nil && $0["url"] == nil }), files.isEmpty || request.prepared != nil else {
            throw RemoteError.invalidParams("files cross machines as their content, not as paths or links")
        }
        // A shared messenger's chat (`*/telegram`) is named alike on every machine already.
        let shared = RemoteChannel.isShared(messenger: request.messenger)
        try await checkUser(of: request, shared: shared)
        let name = shared ? request.messenger : RemoteChannel(machine: request.machine, messenger: request.messenger, channel: "").messengerName
        await delivery.noteLimits(of: name, Hello(name: name, version: "", roles: ["messenger"], limits: request.limits, dialect: request.dialect))
        var params = request.params
        if !shared {
            var chat = try Chat(json: params["chat"] ?? .null)
            chat.channel = RemoteChannel(machine: request.machine, messenger: request.messenger, channel: chat.channel).encoded
            params["chat"] = chat.json
        }
        return try await Self.$preparedAttachments.withValue(request.prepared) {
            try await handle(plugin: name, method: request.method.rawValue, params: params)
        }
    }

    /// A forwarded chat message's attachments as the owner of its chat made them (nil outside
    /// `received`): used instead of this machine's attachments plugin.
    @TaskLocal static var preparedAttachments: AttachmentsInboundResult?

    /// The second look at who asks, here where the session runs: the user must be on this
    /// machine's allowlist of the messenger, or on the one the asking machine published (for a
    /// bot every machine shares, any machine's). A request from a user no machine lets in is
    /// refused, whatever the database says was checked.
    private func checkUser(of request: ForwardedRequest, shared: Bool) async throws {
        let messenger = RemoteChannel.baseMessenger(request.messenger)
        let user = request.params["chat"]?["user"]?.stringValue ?? ""
        if await pairing.allows(user: user, messenger: messenger) { return }
        if !shared, status.machines.allows(user, messenger: messenger, on: request.machine) { return }
        // A shared bot's users are any machine's, also here when this machine does not list the
        // messenger in its own `federation.ingress` (a server without the token).
        if shared, status.machines.allowlists(of: [messenger])[messenger]?.contains(user) == true { return }
        logger.warning("refused a request from machine \(request.machine): user \(user) of \(messenger) is on no allowlist this machine knows")
        throw RemoteError(code: .notAuthorized, message: "user \(user) of \(messenger) may not use the sessions of \(sessions.machine)")
    }

    /// A post or live view another machine's session made for a chat this machine owns: queued
    /// for the messenger here (posts in its outbox, under the other machine's id, so a repeat is
    /// dropped).
    func deliverForwarded(_ forwarded: ForwardedDelivery, from plugin: String) async throws -> JSONValue {
        guard await isFederation(plugin) else {
            throw RemoteError(code: .notAuthorized, message: "only the federation plugin delivers for other machines")
        }
        guard !RemoteChannel.isRemote(messenger: forwarded.messenger), let slot = await host.slot(forwarded.messenger) else {
            throw RemoteError(code: .notFound, message: "no messenger \(forwarded.messenger) on \(sessions.machine)")
        }
        switch forwarded.method {
        case .chatPost:
            // A post's files are paths on the session's machine; a path here would upload this
            // machine's file. They stay there, and the post says so.
            var params = forwarded.params
            let files = params["files"]?.arrayValue ?? []
            if !files.isEmpty {
                params["files"] = .array([])
                let names = files.compactMap { $0["filename"]?.stringValue }.joined(separator: ", ")
                let note = "(\(files.count) file(s) stay on the other machine: \(names))"
                params["text"] = .string([params["text"]?.stringValue, note].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n"))
            }
            try await slot.deliver(forwarded.method.rawValue, params: params, id: forwarded.id)
        case .chatQuestionClosed, .chatReact:
            try await slot.deliver(forwarded.method.rawValue, params: forwarded.params, id: forwarded.id)
        case .chatLive, .chatTyping:
            await slot.notify(forwarded.method.rawValue, params: forwarded.params)
        default:
            throw RemoteError.methodNotFound(forwarded.method.rawValue)
        }
        return [:]
    }
}
