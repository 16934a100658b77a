import FoundationEssentials
import PiRelaySDK
import SupervisorIO

/// The session methods of the control socket; each is also a `pi-relayd` subcommand.
package struct SessionControl: Sendable {
    package let sessions: Sessions
    package let bindings: ChatBindings
    package let delivery: ChatDelivery
    package let prompter: PromptSender
    package let approvalSettings: ApprovalSettings
    package let approvalLog: ApprovalLog
    /// `sessions.spawnLimit`: spawned sessions one session may have at a time.
    package let spawnLimit: Int

    package func handle(method: ControlMethod, params: JSONValue, stream: ControlStream) async throws -> JSONValue? {
        switch method {
        case .sessions:
            return (await sessions.list()).json
        case .new:
            guard let cwd = params["cwd"]?.stringValue else { throw RemoteError.invalidParams("new needs a directory (pi-relayd new DIR)") }
            let session = try await sessions.create(cwd: cwd, name: params["name"]?.stringValue)
            return await sessions.summary(session).json
        case .stream:
            try await watch(session(params), on: stream, runs: params["runs"]?.boolValue == true)
            return nil
        case .questions:
            return try await questions(params)
        case .approvals:
            return try await approvals(params)
        default:
            break
        }
        let session = try await session(params)
        // Who answered, as the chats and the audit log show it: one of the terminal's own names.
        // Any process of the owner's can reach this socket (the agent's tools included), and a
        // name it made up ("alice") would read as a chat user's answer.
        let who = params["by"]?.stringValue.flatMap { Self.terminalNames.contains($0) ? $0 : nil } ?? "terminal"
        if ControlMethod.piCommands.contains(method) { return try await piCommand(method, session, params) }
        if let kind = PromptKind(method) { return try await prompt(session, kind: kind, params) }
        switch method {
        case .history:
            return try await history(session, params)
        case .answer:
            return try await answer(session, params, by: who)
        case .approval:
            return try await approval(session, params)
        case .approvalDecided:
            try await Self.fromTerminalPi(session, peer: stream.peer)
            return try await approvalDecided(session, params)
        case .relayNotify:
            return try await relayNotify(session, params)
        case .relayFile:
            return try await relayFile(session, params)
        case .spawnSession:
            return try await spawnSession(session, params)
        case .cancel:
            return try await cancel(session, params, by: who)
        case .rename:
            guard let name = params["name"]?.stringValue else { throw RemoteError.invalidParams("rename needs a name") }
            try await sessions.rename(session, to: name)
            return await sessions.summary(session).json
        case .images:
            return try await images(session, params)
        case .file:
            return try await file(session, params)
        case .end:
            try await sessions.mayEnd(session)
            await SessionEnd(sessions: sessions, bindings: bindings, observer: delivery).end(
                session, notice: ("warning", "⏹ \(await session.name) was ended from the terminal (pi-relayd end)."))
            return ["ended": .string(session.id)]
        default:
            throw RemoteError.methodNotFound(method.rawValue)
        }
    }

    /// The names a control client may give as who answered (`by`): the CLI's and the terminal
    /// extension's.
    static let terminalNames: Set<String> = ["terminal", "the terminal", "pi-relayd approve", "pi-relayd deny"]

    /// `approval-decided` reports what the terminal's own dialog decided, and "Approve for
    /// session" lets every later call of its rule through: it is taken only from the terminal
    /// pi attached to `session`, by the kernel's word on the caller (`SO_PEERCRED`). A session
    /// pi-relayd started has no terminal dialog, and a process the agent started (a tool call
    /// that writes to this socket) is not the pi it runs in.
    static func fromTerminalPi(_ session: PiSession, peer: PeerCredentials?) async throws {
        let attached = session.terminal != nil ? await session.pid : nil
        guard let attached, let peer, peer.pid == attached else {
            throw RemoteError(
                code: .notAuthorized, message: "approval-decided is taken only from the terminal pi attached to session \(await session.name)")
        }
    }

    package func session(_ params: JSONValue) async throws -> PiSession {
        try await sessions.resolve(params["session"]?.stringValue)
    }

    /// Commands need the child; a session whose pi died is restarted on its session file.
    package func running(_ session: PiSession) async throws -> PiSession {
        try await session.ensureRunning()
        return session
    }

    /// A question can be named by a unique prefix of its id, or by its number in `questions`.
    package func questionID(_ session: PiSession, _ key: String) async throws -> String {
        let open = await session.openQuestions
        if let number = Int(key), number >= 1, number <= open.count, !open.contains(where: { $0.id == key }) { return open[number - 1].id }
        let matches = open.filter { $0.id.hasPrefix(key) }
        if matches.count == 1 { return matches[0].id }
        if open.contains(where: { $0.id == key }) { return key }
        throw RemoteError(code: .notFound, message: "no open question \(key) (already answered or expired?)")
    }

    /// `since` is an ISO time or a duration back from now: 30s, 5m, 2h.
    package static func parseSince(_ text: String) -> Date? {
        if let date = ISO8601.date(text) { return date }
        guard let unit = text.last, let amount = Double(text.dropLast()) else { return nil }
        switch unit {
        case "s": return Date().addingTimeInterval(-amount)
        case "m": return Date().addingTimeInterval(-amount * 60)
        case "h": return Date().addingTimeInterval(-amount * 3600)
        default: return nil
        }
    }
}
