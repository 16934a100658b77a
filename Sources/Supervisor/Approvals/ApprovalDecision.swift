import PiRelaySDK

/// How a gated call was decided: what the extension does with it, and what the audit log keeps.
package struct ApprovalDecision: Sendable, Equatable {
    package enum Outcome: String, Sendable {
        case approvedOnce = "approved_once"
        case approvedForSession = "approved_for_session"
        /// Passed because its rule was approved for the session earlier.
        case approvedEarlier = "approved_earlier"
        case denied
        case timedOut = "timed_out"
        /// Nobody could be asked: no chat watches a spawned session.
        case nobodyToAsk = "nobody_to_ask"
        /// pi went away (exited, detached) before anyone answered.
        case abandoned
        /// A terminal session with no chat watching: the terminal's own dialog decides.
        case terminalOnly = "terminal_only"
    }

    package var outcome: Outcome
    /// Who decided: `alice (42) on discord`, `the terminal`, `pi-relayd approve`, the timeout.
    package var by: String
    /// What the agent hears when the call is denied.
    package var reason: String = ""

    package var allowed: Bool { [.approvedOnce, .approvedForSession, .approvedEarlier].contains(outcome) }

    package var json: JSONValue {
        ["allowed": .bool(allowed), "outcome": .string(outcome.rawValue), "by": .string(by), "reason": .string(reason)]
    }
}
