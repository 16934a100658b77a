/// A session's approval gates as bookkeeping (docs/CONFIG.md, "approvals"): the gated calls
/// waiting for a person, the rules approved for the session and which terminal pi they belong
/// to, and the gates the terminal's own dialog already decided. Pure: the session asks the
/// chats, keeps the clock and resumes the waiters this hands back.
package struct ApprovalBook {
    package typealias Waiter = CheckedContinuation<ApprovalDecision, Never>

    /// What deciding a gate settled: its rule, and the call waiting on it (nil when the decision
    /// came before the call started waiting; it then finds the decision when it does).
    package struct Decided {
        package let rule: String
        package let waiter: Waiter?
    }

    private var gates: [String: ApprovalGate] = [:]
    /// Rules approved "for the session": later calls they match pass at once.
    private var approvedRules: Set<String> = []
    /// The terminal pi whose approvals `approvedRules` are.
    private var holder: Int32?
    /// Gates the terminal decided, most recent last.
    private var decidedByTerminal: [String] = []
    package static let decidedByTerminalKept = 64

    /// The gates still open, by question id.
    package var openGates: [String] { Array(gates.keys) }

    package func isGate(_ qid: String) -> Bool { gates[qid] != nil }

    package func approvedEarlier(_ rule: String) -> Bool { approvedRules.contains(rule) }

    package func decidedAtTerminal(_ qid: String) -> Bool { decidedByTerminal.contains(qid) }

    /// A call matching `rule` now waits on gate `qid`.
    package mutating func open(_ qid: String, rule: String) {
        gates[qid] = ApprovalGate(rule: rule)
    }

    /// The call starts waiting: the decision to resume it with at once (one made already, or an
    /// abandon when the gate is gone), or nil when `waiter` now waits for it.
    package mutating func wait(_ qid: String, _ waiter: Waiter) -> ApprovalDecision? {
        guard var gate = gates[qid] else {
            return ApprovalDecision(outcome: .abandoned, by: "pi-relayd", reason: "the question was closed")
        }
        if let early = gate.early {
            gates.removeValue(forKey: qid)
            return early
        }
        gate.waiter = waiter
        gates[qid] = gate
        return nil
    }

    /// Settles gate `qid` once: the first decision wins, later ones get nil.
    package mutating func decide(_ qid: String, _ decision: ApprovalDecision) -> Decided? {
        guard var gate = gates[qid], gate.early == nil else { return nil }
        if decision.outcome == .approvedForSession { approvedRules.insert(gate.rule) }
        if let waiter = gate.waiter {
            gates.removeValue(forKey: qid)
            return Decided(rule: gate.rule, waiter: waiter)
        }
        gate.early = decision
        gates[qid] = gate
        return Decided(rule: gate.rule, waiter: nil)
    }

    /// The terminal's dialog decided gate `qid`: a request for it still on its way is not posted.
    package mutating func terminalDecided(_ qid: String) {
        decidedByTerminal.append(qid)
        if decidedByTerminal.count > Self.decidedByTerminalKept {
            decidedByTerminal.removeFirst(decidedByTerminal.count - Self.decidedByTerminalKept)
        }
    }

    /// A rule approved for the session at the terminal.
    package mutating func approveForSession(_ rule: String) {
        approvedRules.insert(rule)
    }

    /// A terminal pi attached: "Approve for session" lasts while the same pi stays in this pi
    /// session. A `/reload` re-attaches the same pi and keeps them; another pi process, or a pi
    /// that switched here (`switched`), starts without them.
    package mutating func terminalAttached(pid: Int32, switched: Bool) {
        if switched || holder != pid { approvedRules.removeAll() }
        holder = pid
    }

    /// A spawned session's pi started (after an exit or a hang) or began a new conversation
    /// (`/reset`, the idle and message policies): "Approve for session" held for the pi and the
    /// conversation it was given in, as in a terminal, and a later `git push` in an unrelated
    /// conversation went through unasked.
    package mutating func conversationEnded() {
        approvedRules.removeAll()
    }

    /// A terminal pi switched away from this session: what it approved here ends with it.
    package mutating func terminalLeft() {
        approvedRules.removeAll()
        holder = nil
    }
}
