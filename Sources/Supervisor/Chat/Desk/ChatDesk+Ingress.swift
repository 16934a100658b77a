import PiRelaySDK

/// One bot token on several machines (docs/FEDERATION.md): the federation's lease decides which
/// machine's messenger takes the bot's updates. The messengers listed in `federation.ingress`
/// start standing by and are told when this machine holds the lease; their confirmed positions
/// go to the database under the lease's epoch.
extension ChatDesk {
    /// The messengers whose ingress the federation decides (`federation.ingress` in config.yaml).
    var sharedMessengers: Set<String> { sections.sharedMessengers }

    /// A shared messenger's chat request, checked against this machine's allowlist and handled
    /// as a chat of `*/MESSENGER`; nil for anything else.
    func asSharedChat(plugin: String, method: MethodName, params: JSONValue) async throws -> JSONValue? {
        // The method first: every plugin request passes here, and the set reads the config.
        guard [.chatMessage, .chatCommand, .chatAnswer, .chatBind].contains(method), sharedMessengers.contains(plugin) else { return nil }
        var chat = try Chat(json: params["chat"] ?? .null).from(plugin: plugin)
        // Only the holder acts on the bot's traffic. What reaches a machine that stands by comes
        // from its messenger's journal (taken while it held the bot, handed over after a restart
        // or a freeze); acting on it here, perhaps before this machine knows where the chat's
        // session runs, could lose it. Refused as unavailable, it stays in the journal, and is
        // handed over again when this machine takes the bot (the claims drop it if the service
        // gave it to the holder meanwhile, as Telegram does with an unconfirmed position).
        guard status.machines.ingress(of: plugin)?.active == true else {
            logger.info("\(method.rawValue) from \(plugin) kept for later: another machine holds the bot")
            throw RemoteError(code: .unavailable, message: "this machine stands by: another machine of the federation holds the bot")
        }
        guard await allowed(chat) else {
            logger.warning("refused \(method.rawValue) from unlisted user \(chat.user) on \(plugin)")
            return method == .chatMessage ? ChatMessageResult(status: .refused, reply: .notAuthorized).json : Reply.notAuthorized.json
        }
        // Named alike on every machine (`*/telegram`): whichever machine holds the bot, a chat is
        // the same chat, so its bindings hold across a failover, and what is posted to it goes
        // to whoever holds the bot then.
        chat.channel = RemoteChannel(machine: RemoteChannel.anyMachine, messenger: plugin, channel: chat.channel).encoded
        var shared = params
        shared["chat"] = chat.json
        // Claimed once across machines (two holders may both take it across a change). A
        // message for a session on another machine is claimed in the statement that sends it
        // there (`ForwardedRequest.claim`), so a holder that dies before it routed the message
        // leaves it to the next one; any other is claimed here, before it is acted on, and given
        // back when acting on it failed, so the messenger's retry counts.
        guard method == .chatMessage, let messageID = params["messageId"]?.stringValue else {
            return try await handle(plugin: RemoteChannel.sharedMessenger(plugin), method: method.rawValue, params: shared)
        }
        let text = params["text"]?.stringValue ?? ""
        // The pick is kept under the chat as its requests are handled: of `*/MESSENGER`.
        if !text.hasPrefix("/"), await pickedElsewhere(chat.from(plugin: RemoteChannel.sharedMessenger(plugin))) {
            return try await Self.$routedClaim.withValue(messageID) {
                try await handle(plugin: RemoteChannel.sharedMessenger(plugin), method: method.rawValue, params: shared)
            }
        }
        guard await claimedFirst(messageID, messenger: plugin) else {
            logger.info("chat message \(messageID) from \(plugin) was taken by another machine of the federation; not here")
            return ChatMessageResult(status: .ignored).json
        }
        do {
            return try await handle(plugin: RemoteChannel.sharedMessenger(plugin), method: method.rawValue, params: shared)
        } catch {
            await releaseClaim(messageID, messenger: plugin)
            throw error
        }
    }

    /// The id of the shared messenger's message being routed, for the forward that sends it to
    /// another machine to claim (nil outside `asSharedChat`).
    @TaskLocal static var routedClaim: String?

    /// Whether a shared chat picked a session on another machine the federation knows.
    private func pickedElsewhere(_ chat: Chat) async -> Bool {
        guard let picked = await preferences.machine(chat.key), picked != sessions.machine else { return false }
        return status.machines.current()?.report.machines.contains { $0.name == picked } == true
    }

    /// What the welcome tells `plugin` of its ingress: nil when no federation shares its token;
    /// else the federation's last word, or standing by until it has one.
    func sharedIngress(of plugin: String) -> IngressChange? {
        guard sharedMessengers.contains(plugin) else { return nil }
        return status.machines.ingress(of: plugin)
            ?? IngressChange(messenger: plugin, active: false, reason: "waiting for the federation's lease")
    }

    /// The federation's lease on a messenger changed hands: the messenger hears it.
    func ingressChanged(_ change: IngressChange) async {
        let before = status.machines.ingress(of: change.messenger)
        status.machines.update(change)
        // Said again every few seconds to keep the messenger's gate open: logged when it changed.
        if before?.active != change.active || before?.epoch != change.epoch {
            logger.notice(
                change.active
                    ? "\(change.messenger) takes the bot's updates on this machine (lease epoch \(change.epoch.map(String.init) ?? "?"))"
                    : "\(change.messenger) stands by: \(change.reason ?? "another machine holds the lease")")
        }
        await host.slot(change.messenger)?.notify(.messengerIngress, change)
        if change.active, before?.active != true || before?.epoch != change.epoch { await takePicks(of: change.messenger) }
    }

    /// This machine has just taken the bot: every chat goes on with the machine it picked.
    private func takePicks(of messenger: String) async {
        guard let federation = await host.plugin(forRole: "federation") else { return }
        do {
            let stored = try await federation.request(.federationPicks, ChatPicks(messenger: messenger), timeout: .seconds(10))
            for (chat, machine) in stored.picks { await preferences.pick(machine, for: chat) }
            if !stored.picks.isEmpty { logger.info("took the machines \(stored.picks.count) chat(s) of \(messenger) picked") }
        } catch {
            logger.warning("could not read which machines the chats of \(messenger) picked: \(error)")
        }
    }

    /// A shared messenger's confirmed position, stored under this machine's epoch; not stored
    /// (the messenger stands by) when another machine holds the lease.
    func storeCursor(_ cursor: IngressCursor) async throws -> CursorAnswer {
        guard sharedMessengers.contains(cursor.messenger) else { return CursorAnswer(stored: true) }
        guard let federation = await host.plugin(forRole: "federation") else {
            throw RemoteError(code: .unavailable, message: "the federation plugin is not running")
        }
        return try await federation.request(.federationCursor, cursor, timeout: .seconds(5))
    }

    /// Whether this machine is the first of the federation to act on a shared messenger's
    /// message (`federation.claim`). True for a messenger no federation shares, and when the
    /// database cannot say: then only the preferred machine takes the bot's updates.
    func claimedFirst(_ messageID: String, messenger: String) async -> Bool {
        guard sharedMessengers.contains(messenger), let federation = await host.plugin(forRole: "federation") else { return true }
        do {
            return try await federation.request(.federationClaim, MessageClaim(messenger: messenger, messageID: messageID), timeout: .seconds(5))
                .first ?? true
        } catch {
            logger.warning("could not claim message \(messageID) of \(messenger) in the federation (\(error)); acting on it")
            return true
        }
    }

    /// Gives a claim back: acting on the message failed, so the messenger's retry must count.
    func releaseClaim(_ messageID: String, messenger: String) async {
        guard sharedMessengers.contains(messenger), let federation = await host.plugin(forRole: "federation") else { return }
        do {
            _ = try await federation.request(
                .federationClaim, MessageClaim(messenger: messenger, messageID: messageID, release: true), timeout: .seconds(5))
        } catch {
            logger.warning("could not give back the claim on message \(messageID) of \(messenger): \(error)")
        }
    }
}
