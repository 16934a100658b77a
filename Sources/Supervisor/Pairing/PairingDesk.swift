import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// Pairing (`pi-relayd pair`, `/pair CODE`) and the allowlist it keeps: each messenger's
/// configured users merged with the paired ones (`PairedUsers`). The chat desk asks it who may
/// talk at every message, so a pairing or a revocation counts from the next message on, and
/// each change is delivered to the messenger (`chat.allowlist`) so its own check agrees.
package actor PairingDesk {
    package static let lifetime: Duration = .seconds(600)
    /// A link that signs a browser in by itself is worth more to whoever finds it: shorter.
    package static let linkLifetime: Duration = .seconds(300)

    package let logger: Logger
    package let host: PluginHost
    package let delivery: ChatDelivery
    /// For codes made by `/relay pair`: the claiming chat is bound to the terminal's session.
    package let sessions: Sessions
    package let bindings: ChatBindings
    /// A revoked user's schedules go with them.
    let schedules: Schedules
    let sections: PluginSections
    private let environment: [String: String]
    package var offers = PairingOffers()
    var paired: PairedUsers
    /// Who the federation's other machines let use each messenger whose bot every machine shares
    /// (`federation.ingress`): whichever machine holds the bot lets the same users in.
    var federated: [String: Set<String>] = [:]
    /// Users revoked across the federation: made here, and how far this machine has taken in
    /// the others'.
    var revocations: Revocations
    private var waiters: [String: CheckedContinuation<PairingOutcome, Never>] = [:]
    /// Outcomes that came before their terminal started waiting.
    private var early: [String: PairingOutcome] = [:]
    /// The open codes whose outcomes nobody waits for: made by `/relay pair`, or by a pairing
    /// whose link completes it (the web dashboard).
    package var unwatchedCodes: Set<String> = []

    package init(
        home: Home, logger: Logger, sections: PluginSections, environment: [String: String], host: PluginHost, delivery: ChatDelivery,
        sessions: Sessions, bindings: ChatBindings, schedules: Schedules
    ) {
        self.sessions = sessions
        self.schedules = schedules
        self.bindings = bindings
        self.logger = logger
        self.host = host
        self.delivery = delivery
        self.sections = sections
        self.environment = environment
        paired = Self.load(
            PairedUsers.path(stateDir: home.stateDir), PairedUsers.load, else: { PairedUsers(path: $0) }, losing: "starting with no paired users",
            logger: logger)
        // Taken in again from the federation's report; only revocations made here that the
        // database never had are lost.
        revocations = Self.load(
            Revocations.path(stateDir: home.stateDir), Revocations.load, else: { Revocations(path: $0) },
            losing: "revocations made here and not yet in the federation's database are lost", logger: logger)
    }

    /// A state file read, or, when it does not read, kept aside rather than overwritten by the
    /// next change, with what that costs told to the owner.
    private static func load<State>(
        _ path: String, _ read: (String) throws -> State, else fresh: (String) -> State, losing: String, logger: Logger
    ) -> State {
        do { return try read(path) } catch {
            let aside = path + ".unreadable-\(Int(Date().timeIntervalSince1970))"
            try? FileManager.default.moveItem(atPath: path, toPath: aside)
            logger.error("\(error); moved to \(aside): \(losing)")
            return fresh(path)
        }
    }

    // MARK: The allowlist

    package func configured(_ messenger: String) -> Set<String> {
        Allowlist(section: sections.section(messenger), messenger: messenger, environment: environment).users
    }

    package func allows(_ chat: Chat) -> Bool {
        allows(user: chat.user, messenger: chat.messenger)
    }

    package func allows(user: String, messenger: String) -> Bool {
        own(messenger).contains(user) || federated[messenger]?.contains(user) == true
    }

    /// Everything a messenger should let through, for its welcome and `chat.allowlist`.
    package func allowedUsers(messenger: String) -> [String] {
        own(messenger).union(federated[messenger] ?? []).sorted()
    }

    /// This machine's own users of `messenger`: configured and paired.
    private func own(_ messenger: String) -> Set<String> {
        configured(messenger).union(paired.ids(messenger: messenger))
    }

    /// This machine's own users of each messenger that has any, for the federation's other
    /// machines (`relay.status`). Never what they published: a user they revoke is gone.
    package func ownAllowlists(messengers: [String]) -> [String: [String]] {
        var lists: [String: [String]] = [:]
        for name in Set(messengers).union(paired.users.map(\.messenger)) {
            let users = own(name)
            if !users.isEmpty { lists[name] = users.sorted() }
        }
        return lists
    }

    /// The users the other machines let use each shared messenger, less those revoked here and
    /// not yet in the federation's report; a messenger whose list changed hears it (`chat.allowlist`).
    func adopt(federated published: [String: Set<String>], unreported: [Revocation]) async {
        var lists = published
        for revocation in unreported { lists[revocation.messenger]?.remove(revocation.user) }
        let before = federated
        federated = lists
        for name in Set(before.keys).union(lists.keys).sorted() where before[name] ?? [] != lists[name] ?? [] {
            logger.info("the federation's other machines let \(lists[name]?.count ?? 0) user(s) use \(name)")
            await delivery.deliver(name, .chatAllowlist, AllowlistParams(users: allowedUsers(messenger: name)))
        }
    }

    // MARK: Claims from chats

    /// `chat.pair`: someone sent `/pair CODE`. Every refusal reads the same, whatever the reason.
    package func claim(_ params: ChatPairParams) async -> Reply {
        let chat = params.chat
        expireDue()
        let who = "\(chat.userName ?? chat.user) (\(chat.user))"
        // A code from `/relay pair` binds a chat, so someone already allowed may claim it too.
        if chat.dm, allows(chat), offers.open[chat.messenger]?.sessionID == nil {
            return Reply("You can already use this bot.", ephemeral: true)
        }
        switch offers.claim(messenger: chat.messenger, typed: params.code, inDM: chat.dm) {
        case .accepted(let offer):
            logger.notice("pairing: the code for \(chat.messenger) was claimed by \(who)")
            if let sessionID = offer.sessionID, unwatchedCodes.contains(offer.code) {
                return await claimForSession(offer, sessionID: sessionID, by: chat)
            }
            guard offer.confirm else {
                let problem = await add(chat)
                var welcome = Self.welcomeText
                if let sessionID = offer.sessionID {
                    welcome = Self.boundText(await bind(chat, to: sessionID, label: offer.label), label: offer.label)
                }
                resolve(offer.code, .paired(chat))
                return Reply(text: problem == nil ? welcome : "⚠️ Paired, but pi-relayd could not save it: \(problem ?? "")", paired: true)
            }
            resolve(offer.code, .claimed(chat))
            return Reply("Code accepted. Waiting for the bot's owner to confirm on their terminal…")
        case .rejected(let voided):
            logger.warning("pairing: a wrong or stale code from \(who) on \(chat.messenger)")
            if let voided {
                resolve(voided.code, .voided("five wrong tries on \(chat.messenger): the code is void"))
            }
            return Reply(
                "That code is not valid: it is wrong, used or expired. Ask the bot's owner for a new one (pi-relayd pair \(chat.messenger)).")
        case .refusedOutsideDM(let voided):
            logger.warning("pairing: \(who) tried to pair outside a direct message on \(chat.messenger); refused")
            var text = "Pairing works only in a direct message with the bot: send /pair CODE to me privately."
            if let voided {
                resolve(voided.code, .voided("the code was sent in a group chat on \(chat.messenger), where others can read it: it is void"))
                text += " That code was posted here, so it no longer works: ask for a new one."
            }
            return Reply(text)
        }
    }

    package static let welcomeText = "✅ Paired: this bot now takes your messages. /new DIR starts a session, /sessions lists them."

    // MARK: The terminal (`pi-relayd pair`)

    /// The `pair` control method: makes a code, sends it as an event, waits for a claim, asks the
    /// terminal to confirm (unless `confirm` is false), and answers with who was paired. With a
    /// `session` (and maybe a `label`), the claiming chat also watches that session under the
    /// label, in the same step (seed 002's `/relay connect`). `ttlSeconds` (tests only) shortens
    /// the code's life; it can never lengthen it.
    package func pair(params: JSONValue, stream: ControlStream) async throws -> JSONValue? {
        guard let messenger = params["messenger"]?.stringValue, !messenger.isEmpty else {
            throw RemoteError.invalidParams("pair needs a messenger")
        }
        guard let slot = await host.slot(messenger) else {
            throw RemoteError(code: .notFound, message: "no plugin named \(messenger) is installed (see pi-relayd plugins)")
        }
        let state = await slot.state
        guard state == .running else {
            throw RemoteError(
                code: .unavailable,
                message: "the \(messenger) plugin is \(state.rawValue), so nobody could claim a code; see pi-relayd plugins and logs/\(messenger).log"
            )
        }
        guard await slot.roles.contains("messenger") else { throw RemoteError.invalidParams("\(messenger) is not a messenger plugin") }
        var session: PiSession?
        if let key = params["session"]?.stringValue, !key.isEmpty { session = try await sessions.resolve(key) }
        let label = params["label"]?.stringValue.flatMap { $0.trimmingInlineSpace().isEmpty ? nil : $0.trimmingInlineSpace() }
        let code = PairingCode.make()
        let (lifetime, identity) = await terms(of: code, from: slot, params: params)
        let byLink = identity?.pairByLink == true && identity?.pairLink != nil
        // A link pairing is never confirmed at the terminal: the link was shown only there.
        let offer = PairingOffer(
            messenger: messenger, code: code, expires: .now + lifetime, confirm: !byLink && (params["confirm"]?.boolValue ?? true),
            sessionID: session?.id, label: session == nil ? nil : label)
        if let replaced = offers.add(offer) { resolve(replaced.code, .replaced) }
        logger.notice("pairing: a code for \(messenger) was made, valid for \(Int(lifetime.inSeconds)) s")

        var event: JSONValue = [
            "type": "code", "messenger": .string(messenger), "code": .string(offer.code),
            "expiresAt": .string(ISO8601.string(Date().addingTimeInterval(lifetime.inSeconds))),
            "expiresInSeconds": JSONValue(Int(lifetime.inSeconds.rounded())),
        ]
        if let identity {
            event["bot"] = .string(identity.username.map { "@" + $0 } ?? identity.name)
            if let link = identity.pairLink { event["link"] = .string(link) }
        }
        if byLink {
            // Opening the link completes it: nobody waits for the outcome, the terminal is free.
            event["byLink"] = true
            unwatchedCodes.insert(offer.code)
            stream.send(event)
            return [
                "paired": false, "byLink": true, "messenger": .string(messenger), "link": event["link"] ?? .null,
                "expiresInSeconds": event["expiresInSeconds"] ?? .null,
            ]
        }
        stream.send(event)

        // Unstructured on purpose: the expiry and the hang-up wake this handler while it waits.
        let timer = Task { [weak self] in
            do { try await Task.sleep(until: offer.expires) } catch { return }
            await self?.expireDue()
        }
        defer { timer.cancel() }
        Task { [weak self] in
            await stream.waitUntilClosed()
            await self?.withdraw(offer)
        }

        switch await outcome(of: offer.code) {
        case .expired:
            throw RemoteError(
                code: .timeout, message: "the code expired unused after \(Int(lifetime.inSeconds)) s; run pi-relayd pair \(messenger) again")
        case .voided(let why):
            throw RemoteError(code: .notAuthorized, message: "\(why); run pi-relayd pair \(messenger) again")
        case .replaced:
            throw RemoteError(code: .other("replaced"), message: "a newer pi-relayd pair \(messenger) replaced this code")
        case .hungUp:
            return nil
        case .paired(let chat):
            return await Self.result(chat, paired: true, session: session)
        case .claimed(let chat):
            stream.send(["type": "claimed", "messenger": .string(messenger), "user": .string(chat.user), "userName": .string(chat.userName ?? "")])
            let accepted = await confirmation(from: stream)
            if accepted == true {
                let problem = await add(chat)
                var welcome = Self.welcomeText
                if let session { welcome = Self.boundText(await bind(chat, to: session.id, label: label), label: label) }
                await post(problem == nil ? welcome : "⚠️ Paired, but pi-relayd could not save it.", to: chat)
                var result = await Self.result(chat, paired: true, session: session)
                if let problem { result["warning"] = .string(problem) }
                return result
            }
            logger.notice("pairing: \(chat.user) on \(messenger) was not confirmed")
            await post("The bot's owner did not confirm this pairing.", to: chat)
            return accepted == nil ? nil : await Self.result(chat, paired: false)
        }
    }

    private static func result(_ chat: Chat, paired: Bool, session: PiSession? = nil) async -> JSONValue {
        var result: JSONValue = [
            "paired": .bool(paired), "messenger": .string(chat.messenger), "user": .string(chat.user), "userName": .string(chat.userName ?? ""),
        ]
        if paired, let session { result["session"] = .string(await session.name) }
        return result
    }

    /// The terminal's `{"confirm": true|false}`; nil when it hung up first.
    private func confirmation(from stream: ControlStream) async -> Bool? {
        for await line in stream.incoming {
            if let answer = (try? JSONValue.parse(bytes: line))?["confirm"]?.boolValue { return answer }
        }
        return nil
    }

    private func outcome(of code: String) async -> PairingOutcome {
        if let settled = early.removeValue(forKey: code) { return settled }
        return await withCheckedContinuation { waiters[code] = $0 }
    }

    package func resolve(_ code: String, _ outcome: PairingOutcome) {
        // Nobody waits for a `/relay pair` code: its outcome is not kept for a waiter.
        if unwatchedCodes.remove(code) != nil, waiters[code] == nil { return }
        if let waiter = waiters.removeValue(forKey: code) { waiter.resume(returning: outcome) } else { early[code] = outcome }
    }

    package func expireDue() {
        for offer in offers.expire(now: .now) {
            logger.notice("pairing: the code for \(offer.messenger) expired unused")
            resolve(offer.code, .expired)
        }
    }

    private func withdraw(_ offer: PairingOffer) {
        guard offers.withdraw(messenger: offer.messenger, code: offer.code) != nil else { return }
        logger.notice("pairing: the terminal waiting for the \(offer.messenger) code went away; the code is withdrawn")
        resolve(offer.code, .hungUp)
    }

    // MARK: Changes

    /// Adds the user and tells their messenger; the problem when it could not be saved.
    package func add(_ chat: Chat) async -> String? {
        let user = PairedUser(messenger: chat.messenger, id: chat.user, name: chat.userName ?? chat.user, pairedAt: ISO8601.string(Date()))
        var problem: String?
        if revocations.forget(messenger: chat.messenger, user: chat.user) { saveRevocations() }
        if paired.add(user) {
            do { try paired.save() } catch {
                logger.error("pairing: cannot save \(paired.path): \(error)")
                problem = "\(error)"
            }
        }
        logger.notice("pairing: \(user.name) (\(user.id)) may now use \(chat.messenger)")
        await delivery.deliver(chat.messenger, .chatAllowlist, AllowlistParams(users: allowedUsers(messenger: chat.messenger)))
        return problem
    }

    private func post(_ text: String, to chat: Chat) async {
        await delivery.deliver(chat.messenger, .chatPost, ChatPostParams(target: chat.target, kind: .reply, text: text))
    }

    /// `users.revoke`: removes a paired user (of one messenger, or of all); effective at their
    /// next message. Their direct messages stop watching sessions (no more output or approval
    /// questions reach them) and the schedules they made are removed. A user who is only in a
    /// configured allowlist is not paired: that is an error naming where to remove them. On a
    /// messenger whose bot the federation shares, the user is revoked on every machine
    /// (`Revocations`): paired here or only on another machine, even one that is offline.
    package func revoke(params: JSONValue) async throws -> JSONValue {
        guard let id = params["id"]?.stringValue, !id.isEmpty else { throw RemoteError.invalidParams("users.revoke needs an id") }
        let messenger = params["messenger"]?.stringValue
        var next = paired
        let gone = next.remove(id: id, messenger: messenger)
        let messengers = messenger.map { [$0] } ?? Array(Set(sections.names).union(paired.users.map(\.messenger))).sorted()
        let configuredIn = messengers.filter { configured($0).contains(id) }
        let across = sections.sharedMessengers.filter { name in
            (messenger == nil || name == messenger) && (gone.contains { $0.messenger == name } || federated[name]?.contains(id) == true)
        }.sorted()
        guard !gone.isEmpty || !across.isEmpty else {
            if let first = configuredIn.first { throw PairedUsers.notPaired(id, configuredIn: first) }
            throw RemoteError(code: .notFound, message: "no paired user \(id)" + (messenger.map { " on \($0)" } ?? ""))
        }
        if !across.isEmpty {
            // Saved first: a pairing removed here but not across the federation would still let
            // them in through the bot.
            var revoked = revocations
            for name in across { revoked.record(messenger: name, user: id, now: Date()) }
            do { try revoked.save() } catch { throw RemoteError(code: .internal, message: "cannot save \(revoked.path): \(error)") }
            revocations = revoked
            for name in across { federated[name]?.remove(id) }
        }
        if !gone.isEmpty {
            do { try next.save() } catch { throw RemoteError(code: .internal, message: "cannot save \(paired.path): \(error)") }
            paired = next
        }
        for user in gone { logger.notice("pairing: \(user.name) (\(user.id)) was revoked on \(user.messenger)") }
        for name in across { logger.notice("pairing: \(id) was revoked on \(name) across the federation") }
        let (unbound, unscheduled) = await dropAccess(of: id, on: Set(gone.map(\.messenger)).union(across))
        // Gone from memory, so nothing more reaches them now; but a restart before the disk takes
        // a save would bring them back, and the owner must hear that.
        var unsaved: [JSONValue] = []
        if !unbound.isEmpty, let error = await bindings.saveError { unsaved.append(.string("bindings: \(error)")) }
        if !unscheduled.isEmpty, let error = await schedules.saveError { unsaved.append(.string("schedules: \(error)")) }
        return [
            "revoked": .array(gone.map(\.json)), "stillConfiguredIn": .array(configuredIn.map { .string($0) }),
            "unbound": .array(unbound.map { .string($0.key) }), "schedulesRemoved": .array(unscheduled.map { JSONValue($0.number) }),
            "unsaved": .array(unsaved), "acrossFederation": .array(across.map { .string($0) }),
        ]
    }

    /// `id` no longer paired on `messengers` (or revoked across the federation): each messenger
    /// hears its new allowlist, and where no other way lets them in (config.yaml, the
    /// environment), their direct messages stop watching sessions and their schedules go.
    func dropAccess(of id: String, on messengers: Set<String>) async -> (unbound: [Binding], unscheduled: [Schedule]) {
        var unbound: [Binding] = []
        var unscheduled: [Schedule] = []
        for name in messengers.sorted() {
            await delivery.deliver(name, .chatAllowlist, AllowlistParams(users: allowedUsers(messenger: name)))
            guard !allows(user: id, messenger: name) else { continue }
            let chats = await bindings.unbindDirectMessages(of: id, on: name)
            unbound += chats
            unscheduled += await schedules.removeAll(madeBy: id, on: name, inChats: Set(chats.map(\.key)))
        }
        return (unbound, unscheduled)
    }
}

extension PairingDesk {
    /// Who the bot is, for the answer (nil when the messenger does not say), and how long `code`
    /// lives: `ttlSeconds` when asked, at most `lifetime`, and at most `linkLifetime` for a link
    /// that signs in by itself (`pairByLink`).
    func terms(of code: String, from slot: PluginSlot, params: JSONValue) async -> (lifetime: Duration, identity: MessengerIdentity?) {
        var lifetime = Self.lifetime
        // Capped before the conversion: a huge number (1e300) would trap it, and end the daemon.
        if let seconds = params["ttlSeconds"]?.doubleValue, seconds > 0 {
            lifetime = .milliseconds(Int(min(seconds, Double(lifetime.components.seconds)) * 1000))
        }
        var identity: MessengerIdentity?
        do {
            identity = try await slot.request(.messengerIdentity, MessengerIdentityParams(pairCode: code), timeout: .seconds(15))
        } catch {
            logger.warning("pairing: could not ask \(slot.name) who the bot is: \(error)")
        }
        if identity?.pairByLink == true, identity?.pairLink != nil { lifetime = min(lifetime, Self.linkLifetime) }
        return (lifetime, identity)
    }
}
