import FoundationEssentials
import PiRelaySDK

/// Several sessions per chat: the numbered list with each session's marker,
/// naming a session by number, this chat's alias, name or id, aliases, and forgetting one.
extension ChatDesk {
    /// A session as a chat names it: its number in `/sessions`, the alias this chat gave it, or
    /// its name, id or a unique prefix of either.
    package func resolve(_ key: String, chat: Chat) async throws -> PiSession {
        let all = await sessions.all
        if let number = Int(key), number >= 1, number <= all.count { return all[number - 1] }
        if let id = await bindings.session(aliased: key, in: chat.key), let session = await sessions.session(id: id) { return session }
        // A number in a chat is a place in `/sessions`: past the end (the list shrank since it was
        // read), it must not go on to pick the session whose pid or id prefix it happens to be.
        if !key.isEmpty, key.allSatisfy(\.isASCII), key.allSatisfy(\.isNumber) {
            throw RemoteError(code: .notFound, message: "no session #\(key) here: /sessions lists \(all.count)")
        }
        return try await sessions.resolve(key)
    }

    /// `/alias NAME`: the chat's name for its active session, used in its list, its posts and to
    /// pick it with `/use` or `/to`. Another session of this chat must not have it.
    package func name(_ session: PiSession, _ alias: String?, chat: Chat) async throws -> Reply {
        let name = await session.name
        guard let alias else {
            await bindings.setAlias(chat.key, sessionID: session.id, to: nil)
            return Reply("\(session.marker) \(name) has no alias here now.", ephemeral: true)
        }
        guard !alias.contains(where: \.isWhitespace), alias.count <= 32, Int(alias) == nil else {
            throw RemoteError.invalidParams("an alias is one word of at most 32 characters, not a number")
        }
        if let other = await bindings.session(aliased: alias, in: chat.key), other != session.id {
            throw RemoteError.invalidParams("another session here is already called \(alias)")
        }
        // Aliases are looked up first: one that is another session's name (or its id's start)
        // would hide that session from `/use` and `/to` here.
        for other in await sessions.all where other.id != session.id {
            if await other.name == alias || other.id.hasPrefix(alias) {
                throw RemoteError.invalidParams("another session is already called \(alias) (\(await other.name)); pick another alias")
            }
        }
        await bindings.setAlias(chat.key, sessionID: session.id, to: alias)
        return Reply("\(session.marker) \(name) is called \(alias) in this chat.", ephemeral: true)
    }

    /// `/forget`: takes an offline session off the list (a terminal pi that was closed, or a
    /// spawned pi that exited), and from every chat watching it.
    package func forget(_ session: PiSession, chat: Chat? = nil) async throws -> Reply {
        let name = await session.name
        let state = await session.state
        if session.terminal == nil {
            guard case .exited = state else {
                throw RemoteError(code: .unavailable, message: "\(name) is running, not offline: /end ends it (its pi is stopped).")
            }
        }
        try await sessions.mayEnd(session)
        let by = chat.map { " by \($0.userName ?? $0.user) on \($0.messenger)" } ?? ""
        await SessionEnd(sessions: sessions, bindings: bindings, observer: delivery).end(
            session, notice: ("info", "\(name) was forgotten\(by): it is off the session list."), asking: chat?.key)
        return Reply("Forgot \(session.marker) \(name).")
    }

    /// `/sessions`: every session, numbered, with its marker, name (or this chat's alias),
    /// model, state, last activity, and for a terminal session whether its pi is online; the
    /// sessions this chat watches are marked, and a button picks each.
    package func sessionList(chat: Chat) async -> Reply {
        let all = await sessions.all
        let machine = sessions.machine
        let remote = otherMachines(numberedFrom: all.count + 1)
        if all.isEmpty {
            return Reply((["No sessions on \(machine). Start one with /new <dir>."] + remote).joined(separator: "\n"), ephemeral: true)
        }
        let watched = await bindings.watched(chat.key)
        // Replies are markdown where the messenger shows it; elsewhere (Telegram shows replies
        // as plain text) the stars would stand there.
        let strong = await delivery.dialect(of: chat.messenger) == .markdown ? "**" : ""
        var lines = ["Sessions on \(machine):"]
        var buttons: [Reply.Action] = []
        for (index, session) in all.enumerated() {
            let name = await session.name, state = await session.state, sid = session.id
            let alias = await bindings.alias(chat.key, sessionID: sid)
            var parts = ["\(session.marker) \(index + 1). \(strong)\(alias ?? name)\(strong)" + (alias == nil ? "" : " (\(name))")]
            parts.append(await session.model ?? "default model")
            // A terminal session is the pi someone runs at their desk: online while it is attached.
            if session.terminal != nil {
                parts.append("terminal " + (state == .offline ? "offline" : "online"))
                if state != .offline { parts.append(state.name) }
            } else {
                parts.append(state.name)
            }
            parts.append(Self.ago(await session.lastActivity))
            if watched.first == sid {
                parts.append("active here")
            } else if watched.contains(sid) {
                parts.append("watched here")
            }
            lines.append(parts.joined(separator: " · "))
            let style = watched.first == sid ? "success" : (state == .idle ? "primary" : "secondary")
            let label = "\(session.marker) \(index + 1). \(alias ?? name)"
            buttons.append(.init(id: "use:\(sid)", label: String(((state == .busy ? "⏳ " : "") + label).prefix(Reply.maxLabelLength)), style: style))
        }
        // In a shared room a button would pick this machine without the others knowing (bots do
        // not see each other's messages): the room picks by what the user writes.
        lines += remote
        if isSharedRoom(chat) {
            lines.append("Pick one here: /use \(machine) NAME")
            return Reply(lines.joined(separator: "\n"), ephemeral: true)
        }
        var reply = Reply(lines.joined(separator: "\n"), ephemeral: true)
        var rows: [[Reply.Action]] = stride(from: 0, to: min(buttons.count, 20), by: 5).map { Array(buttons[$0..<min($0 + 5, buttons.count, 20)]) }
        rows.append([.init(id: "disconnect", label: "Disconnect", style: "danger")])
        reply.actions = rows
        return reply
    }

    /// The other machines' sessions as the federation last reported them, a heading per machine
    /// with whether it is online, numbered on from `first`; nothing without a federation.
    func otherMachines(numberedFrom first: Int, now: Date = Date()) -> [String] {
        guard let (report, age) = status.machines.current() else { return [] }
        var lines: [String] = []
        if let since = report.unreachableSince {
            lines.append("The federation's database is unreachable since \(since): other machines are not shown.")
        }
        if age > MachineDirectory.staleAfter { lines.append("(The other machines as of \(Int(age.inSeconds))s ago.)") }
        guard report.unreachableSince == nil else { return lines }
        var number = first
        for other in report.machines {
            let heading = other.online ? "online" : "offline since \(other.lastSeen)"
            guard !other.sessions.isEmpty else {
                lines.append("No sessions on \(other.name) (\(heading)).")
                continue
            }
            lines.append("Sessions on \(other.name) (\(heading)):")
            for session in other.sessions {
                // Numbered on after this machine's, so `/use N` picks one here too.
                var parts = ["\(session.marker ?? "•") \(number). \(session.name)", session.model ?? "default model"]
                number += 1
                parts.append(session.kind == "terminal" ? "terminal \(session.state == "offline" ? "offline" : "online")" : session.state)
                if let last = session.lastActivity.flatMap(ISO8601.date) { parts.append(Self.ago(last, now: now)) }
                lines.append(parts.joined(separator: " · "))
            }
        }
        return lines
    }

    /// "just now", "42s ago", "5m ago", "3h ago", "2d ago".
    package static func ago(_ date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case 0..<5: return "just now"
        case 5..<60: return "\(seconds)s ago"
        case 60..<3600: return "\(seconds / 60)m ago"
        case 3600..<86_400: return "\(seconds / 3600)h ago"
        default: return "\(seconds / 86_400)d ago"
        }
    }
}
