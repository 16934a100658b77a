import FoundationEssentials
import PiRelaySDK

/// `/relay pair [messenger] [label]` in a terminal pi: a code that pairs whoever claims it, as
/// `pi-relayd pair --yes` does, and binds the chat they claim it from to that terminal's session
/// under the label. The code is shown only in the owner's own terminal, so no one is asked to
/// confirm; the answer comes at once (the extension's command must not hold pi's prompt), and
/// the terminal sees the chat arrive in its footer (`relay_status`).
extension PairingDesk {
    /// The `pair.session` control method: `{sessionID, messenger?, label?, ttlSeconds?}` →
    /// `{code, messenger, session, label?, bot?, link?, expiresAt, expiresInSeconds}`. Without a
    /// messenger, the one running messenger plugin; several (or none) is an error naming them.
    package func pairSession(params: JSONValue) async throws -> JSONValue {
        guard let sessionID = params["sessionID"]?.stringValue, let session = await sessions.session(id: sessionID) else {
            throw RemoteError(code: .notFound, message: "no such session: attach first (/relay connect)")
        }
        let messengers = await host.plugins(withRole: "messenger")
        var running: [PluginSlot] = []
        for slot in messengers where await slot.state == .running { running.append(slot) }
        let slot: PluginSlot
        if let name = params["messenger"]?.stringValue, !name.isEmpty {
            guard let named = messengers.first(where: { $0.name == name }) else {
                let known = messengers.map(\.name).joined(separator: ", ")
                throw RemoteError(code: .notFound, message: "no messenger named \(name)" + (known.isEmpty ? "" : " (there is \(known))"))
            }
            guard running.contains(where: { $0 === named }) else {
                throw RemoteError(
                    code: .unavailable, message: "the \(name) plugin is not running, so nobody could claim a code; see pi-relayd plugins")
            }
            slot = named
        } else {
            guard running.count == 1, let only = running.first else {
                throw RemoteError.invalidParams(
                    running.isEmpty
                        ? "no messenger plugin is running; see pi-relayd plugins"
                        : "name the messenger: /relay pair \(running.map(\.name).joined(separator: "|")) [label]")
            }
            slot = only
        }
        let messenger = slot.name
        let label = params["label"]?.stringValue.flatMap { $0.trimmingInlineSpace().isEmpty ? nil : $0.trimmingInlineSpace() }
        let code = PairingCode.make()
        let (lifetime, identity) = await terms(of: code, from: slot, params: params)
        expireDue()
        let offer = PairingOffer(
            messenger: messenger, code: code, expires: .now + lifetime, confirm: false, sessionID: sessionID, label: label)
        unwatchedCodes.insert(offer.code)
        if let replaced = offers.add(offer) { resolve(replaced.code, .replaced) }
        let name = await session.name
        logger.notice("pairing: a code for \(messenger) binding session \(name) was made, valid for \(Int(lifetime.inSeconds)) s")
        // Unstructured on purpose: nobody waits on this code, so its expiry comes on its own.
        Task { [weak self] in
            try? await Task.sleep(until: offer.expires)
            await self?.expireDue()
        }
        var result: JSONValue = [
            "code": .string(offer.code), "messenger": .string(messenger), "session": .string(name),
            "expiresAt": .string(ISO8601.string(Date().addingTimeInterval(lifetime.inSeconds))),
            "expiresInSeconds": JSONValue(Int(lifetime.inSeconds.rounded())),
        ]
        if let label { result["label"] = .string(label) }
        if let identity {
            result["bot"] = .string(identity.username.map { "@" + $0 } ?? identity.name)
            if let link = identity.pairLink { result["link"] = .string(link) }
        }
        return result
    }

    /// A `/relay pair` code was claimed in a DM: the user is let in (if they were not), and the
    /// chat watches the session, made its active one, under the label.
    package func claimForSession(_ offer: PairingOffer, sessionID: String, by chat: Chat) async -> Reply {
        unwatchedCodes.remove(offer.code)
        let problem = allows(chat) ? nil : await add(chat)
        guard let name = await bind(chat, to: sessionID, label: offer.label) else {
            return Reply(text: "✅ Paired, but the terminal session that made the code is gone. /sessions lists the others.", paired: true)
        }
        var text = "✅ Paired: this chat now watches the terminal session \(offer.label ?? name). Its runs show here; your messages go to it."
        if let problem { text += "\n⚠️ but pi-relayd could not save the pairing: \(problem)" }
        return Reply(text: text, paired: true)
    }

    /// The chat watches the session, made its active one, under the label (`/alias`). Returns
    /// the session's name; nil when it is gone.
    package func bind(_ chat: Chat, to sessionID: String, label: String?) async -> String? {
        guard let session = await sessions.session(id: sessionID) else { return nil }
        await bindings.watch(chat, sessionID)
        if let label { await bindings.setAlias(chat.key, sessionID: sessionID, to: label) }
        let name = await session.name
        logger.notice("pairing: \(chat.user) on \(chat.messenger) now watches session \(name)")
        return name
    }

    /// What a chat paired by `pi-relayd pair --session` is told.
    static func boundText(_ name: String?, label: String?) -> String {
        guard let name else { return welcomeText + " (The session the code was for is gone.)" }
        return "✅ Paired: this chat now watches \(label ?? name). Its runs show here; your messages go to it."
    }
}
