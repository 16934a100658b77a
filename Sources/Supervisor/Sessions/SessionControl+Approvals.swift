import PiRelaySDK

extension SessionControl {
    /// `approval`: the extension in a session's pi asks about a call that matched a rule, and
    /// waits on this connection for the decision (docs/EXTENSION.md, "Approval gates").
    package func approval(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        let request = try ApprovalRequest(params: params)
        let chats = await bindings.chats(of: session.id)
        let decision: ApprovalDecision
        var askedIn: [String] = []
        if chats.isEmpty {
            // Fail closed, unless the terminal's own dialog can decide.
            decision =
                await session.terminal != nil
                ? ApprovalDecision(outcome: .terminalOnly, by: "the terminal", reason: "no chat watches this session")
                : ApprovalDecision(
                    outcome: .nobodyToAsk, by: "pi-relayd",
                    reason: "no chat watches this session, so nobody can approve it; it was denied (rule \(request.rule))")
        } else {
            let origin = await session.promptOrigin
            let onlyTo = chats.contains { $0.key == origin } ? origin : nil
            askedIn = onlyTo.map { [$0] } ?? chats.map(\.key)
            decision = await session.approval(request, timeout: approvalSettings.timeout, onlyTo: onlyTo)
        }
        // The terminal's dialog decides a terminal-only gate and reports it as an answer; one it
        // decided while the chats were asked is logged by `approval-decided`.
        if decision.outcome != .terminalOnly, !(await session.decidedAtTerminal(request.id)) {
            await approvalLog.append(
                ApprovalLog.Entry(
                    session: session.id, sessionName: await session.name, request: request, args: await delivery.redacted(request.preview()),
                    decision: decision,
                    askedIn: askedIn))
        }
        return decision.json
    }

    /// `approval-decided`: a terminal-only gate was decided at the terminal; logged for the audit.
    package func approvalDecided(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        let request = try ApprovalRequest(params: params)
        guard let choice = params["choice"]?.stringValue.flatMap(ApprovalChoice.init(rawValue:)) else {
            throw RemoteError.invalidParams("approval-decided needs the choice: \(ApprovalChoice.labels.joined(separator: ", "))")
        }
        let outcome: ApprovalDecision.Outcome = choice == .deny ? .denied : choice == .once ? .approvedOnce : .approvedForSession
        if outcome == .approvedForSession { await session.approveForSession(request.rule) }
        let decision = ApprovalDecision(outcome: outcome, by: "the terminal")
        await session.decidedAtTerminal(request.id, decision)
        await approvalLog.append(
            ApprovalLog.Entry(
                session: session.id, sessionName: await session.name, request: request, args: await delivery.redacted(request.preview()),
                decision: decision,
                askedIn: ["terminal"]))
        return decision.json
    }

    /// `approvals`: recent decisions, of one session or of all.
    package func approvals(_ params: JSONValue) async throws -> JSONValue {
        let limit = params["limit"]?.intValue ?? 20
        guard limit >= 0 else { throw RemoteError.invalidParams("approvals: limit must be 0 or more, not \(limit)") }
        let sessionID = params["session"]?.stringValue == nil ? nil : try await session(params).id
        return .array(await approvalLog.recent(session: sessionID, limit: limit))
    }
}
