import FoundationEssentials
import PiRelaySDK

/// Approval gates (docs/CONFIG.md, "approvals"): the extension in pi asks the daemon before a
/// call that matches a rule; the question goes to the chats as a select with three buttons and
/// the call waits for the first answer, the timeout, or pi going away.
extension PiSession {
    /// Asks about `request` and waits for the decision. `onlyTo` names the one chat to ask (the
    /// one whose prompt is running); nil asks every watching chat.
    package func approval(_ request: ApprovalRequest, timeout: Duration, onlyTo: String?) async -> ApprovalDecision {
        if approvals.approvedEarlier(request.rule) {
            record(type: "approval", ["tool": .string(request.toolName), "rule": .string(request.rule), "outcome": "approved_earlier"])
            return ApprovalDecision(outcome: .approvedEarlier, by: "an approval for the session")
        }
        let qid = request.id
        // The terminal's dialog decided it before this request came in (the extension then
        // drops its wait): there is nothing to ask the chats any more.
        if approvals.decidedAtTerminal(qid) {
            return ApprovalDecision(outcome: .terminalOnly, by: "the terminal", reason: "decided at the terminal first")
        }
        guard questions[qid] == nil, !approvals.isGate(qid) else {
            return ApprovalDecision(outcome: .denied, by: "pi-relayd", reason: "a question with this id is already open")
        }
        var question = PendingQuestion(
            id: qid, sessionID: id, method: "select", title: "🔒 Approve \(request.toolName)?",
            message: "\(request.preview())\nrule: \(request.rule)", options: ApprovalChoice.labels, placeholder: nil, prefill: nil,
            askedAt: Date(), expiresAt: Date().addingTimeInterval(timeout.inSeconds))
        question.onlyChat = onlyTo
        questions.ask(question)
        approvals.open(qid, rule: request.rule)
        record(type: "approval_asked", ["id": .string(qid), "tool": .string(request.toolName), "rule": .string(request.rule)])
        // Unstructured on purpose: the gate's countdown runs beside the session.
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.decideGate(
                qid,
                ApprovalDecision(
                    outcome: .timedOut, by: "the timeout", reason: "nobody approved it within \(JSONValue.number(timeout.inSeconds).serialized()) s"),
                outcome: "expired: no answer in time, so it was denied")
        }
        await tell(.approvalAsked(question, onlyTo: onlyTo))
        // Saved once its card is out (a card must not wait on the disk: under heavy writes a
        // save takes seconds): after a kill -9 the card is closed, not left pressable for good.
        await services.persist(record)
        return await withCheckedContinuation { waiter in
            if let decided = approvals.wait(qid, waiter) { waiter.resume(returning: decided) }
        }
    }

    /// An answer to a gate's question, from a chat button, `pi-relayd approve|deny|answer` or the
    /// terminal's dialog (through the extension).
    package func answerGate(_ qid: String, value: String, by who: String) async throws -> PendingQuestion {
        guard let question = questions[qid] else {
            throw RemoteError(code: .notFound, message: "no open question \(qid) in session \(name) (already answered or expired)")
        }
        let chosen: String
        do {
            if case .value(let picked) = try question.answer(for: value) { chosen = picked } else { chosen = value }
        } catch {
            throw RemoteError.invalidParams("\(error)")
        }
        guard let choice = ApprovalChoice(rawValue: chosen) else {
            throw RemoteError.invalidParams("choose one of: \(ApprovalChoice.labels.joined(separator: ", "))")
        }
        let decision: ApprovalDecision
        switch choice {
        case .once: decision = ApprovalDecision(outcome: .approvedOnce, by: who)
        case .session: decision = ApprovalDecision(outcome: .approvedForSession, by: who)
        case .deny: decision = ApprovalDecision(outcome: .denied, by: who, reason: "\(who) denied it")
        }
        await decideGate(qid, decision, outcome: "\(who) answered: \(choice.rawValue)")
        return question
    }

    /// Settles a gate once: the first decision wins, later ones find nothing.
    package func decideGate(_ qid: String, _ decision: ApprovalDecision, outcome: String) async {
        guard let question = settleGate(qid, decision) else { return }
        await tell(.questionClosed(question, outcome: outcome))
        // Saved closed, so a restart does not close it again; after the chats hear, which must
        // not wait on the disk.
        await services.persist(record)
    }

    /// Gate `qid` decided, its call answered: the question whose copies in the chats are still
    /// to be closed, or nil when it was no open gate.
    func settleGate(_ qid: String, _ decision: ApprovalDecision) -> PendingQuestion? {
        guard let question = questions[qid], let gate = approvals.decide(qid, decision) else { return nil }
        if decision.outcome == .timedOut { machine.health.timedOut("approval") }
        questions.close(qid)
        gate.waiter?.resume(returning: decision)
        record(
            type: "approval",
            ["id": .string(qid), "rule": .string(gate.rule), "outcome": .string(decision.outcome.rawValue), "by": .string(decision.by)])
        return question
    }

    /// pi is gone, or its run stopped: no call waits any more.
    package func abandonGates(_ why: String) async {
        let gates = settleOpenGates(abandoned: why)
        await tellAbandoned(gates, why)
        if !gates.isEmpty { await services.persist(record) }
    }

    /// Every open gate settled as abandoned at once, with no await between them (so none a new
    /// pi opens meanwhile is taken for one of them): the questions to close in the chats.
    func settleOpenGates(abandoned why: String) -> [PendingQuestion] {
        let decision = ApprovalDecision(outcome: .abandoned, by: "pi-relayd", reason: why)
        return approvals.openGates.compactMap { settleGate($0, decision) }
    }

    func tellAbandoned(_ gates: [PendingQuestion], _ why: String) async {
        for gate in gates { await tell(.questionClosed(gate, outcome: "closed: \(why)")) }
    }

    /// The terminal's dialog decided gate `qid` (`approval-decided`): a copy already in the chats
    /// closes, and a request for it still on its way is not posted at all.
    package func decidedAtTerminal(_ qid: String, _ decision: ApprovalDecision) async {
        approvals.terminalDecided(qid)
        await decideGate(qid, decision, outcome: "answered in the terminal")
    }

    /// A rule approved for the session at the terminal: later calls it matches pass at once.
    package func approveForSession(_ rule: String) {
        approvals.approveForSession(rule)
    }

    /// A terminal pi attached: "Approve for session" lasts while the same pi stays in this pi
    /// session. A `/reload` re-attaches the same pi and keeps them; another pi process, or a pi
    /// that switched here with `/new`, `/resume` or `/fork` (`switched`), starts without them.
    package func terminalAttached(pid: Int32, switched: Bool) {
        approvals.terminalAttached(pid: pid, switched: switched)
    }

    /// A terminal pi switched away from this session: what it approved here ends with it.
    package func terminalLeft() {
        approvals.terminalLeft()
    }

    /// Where the prompt now being worked on came from.
    package func notePromptOrigin(_ origin: String) {
        machine.promptOrigin = origin
    }

    /// Whether a prompt sent now would wait behind a run (`promptWouldQueue`); when it would not
    /// and `starting` (a prompt, not a steer or follow-up), it is noted as about to start one in
    /// the same step (`SessionMachine.promptSent`), so a prompt from another chat a moment later
    /// is seen to wait behind it.
    package func promptSending(_ text: String, starting: Bool) -> Bool {
        let busy = promptWouldQueue
        if !busy && starting { machine.promptSent(text, at: .now) }
        return busy
    }

    /// `promptSending` for a prompt that starts a new conversation first when pi is idle
    /// (`sessions.limits.onMessage: newConversation`). The prompt is noted as about to start a
    /// run before `new_session` is sent, so a prompt from another chat meanwhile waits behind it
    /// instead of starting a conversation of its own that would cut this one off.
    package func promptSendingFresh(_ text: String) async throws -> Bool {
        if promptWouldQueue { return true }
        machine.promptSent(text, at: .now)
        do { try await startAfresh() } catch {
            machine.promptRefused()
            throw error
        }
        return false
    }

    /// pi refused the prompt: no run comes of it.
    package func notePromptRefused() {
        machine.promptRefused()
    }

    /// Whether a prompt sent now would wait behind a run: one is going, or one a prompt sent a
    /// moment ago is about to start (pi-rpc spec §5). The agent's own state, not the one shown:
    /// a run that waits for an answer shows `waitingForAnswer`, and is still going.
    package var promptWouldQueue: Bool { machine.isBusy || machine.runAboutToStart(at: .now) }

    /// True for the id of a gate's question.
    package func isGate(_ qid: String) -> Bool { approvals.isGate(qid) }

    /// Whether the terminal's dialog decided gate `qid` already.
    package func decidedAtTerminal(_ qid: String) -> Bool { approvals.decidedAtTerminal(qid) }
}
