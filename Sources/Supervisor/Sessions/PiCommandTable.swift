import PiRelaySDK

/// Matches pi's responses to the commands that caused them. A pure value: no I/O, no clock.
///
/// pi answers commands concurrently and out of order, so ids decide. Two kinds of reply come
/// without an id: a handler that throws answers `command:"parse"`, and an unknown type answers
/// with that type. Those go to the oldest outstanding command they can belong to. A `prompt`
/// can be answered twice (accepted, then rejected, in either order): the first answer settles it
/// and a later failure is reported as a rejection of the prompt.
package struct PiCommandTable {
    package struct Outstanding: Equatable {
        package var id: String
        package var type: String
        package var sequence: Int
    }

    package enum Match: Equatable {
        /// The response settles this command.
        case settles(id: String, type: String)
        /// A second answer to a prompt that was already settled: a late rejection.
        case promptRejectedLate(id: String, error: String)
        /// A second answer that changes nothing (e.g. the success after a failure).
        case duplicate(id: String)
        /// Nothing was waiting for it.
        case unmatched
    }

    /// Commands whose handlers can throw inside pi, so that their failure comes back as the
    /// id-less `parse` error (spec §2, quirk 2). The session keeps at most one of them in flight.
    package static let mayFailWithoutID: Set<String> = [
        "set_model", "cycle_model", "compact", "steer", "follow_up", "fork", "switch_session", "export_html",
    ]

    /// Commands whose answer changes the session even when it comes after the daemon stopped
    /// waiting (a `new_session` an extension's dialog held, pi-rpc spec §2): a late one still
    /// settles them.
    package static let lateEffects: Set<String> = ["new_session", "switch_session", "compact"]

    /// The commands whose first `success:true` a later failure may follow.
    package static let answeredTwice: Set<String> = ["prompt", "steer", "follow_up"]

    package private(set) var outstanding: [String: Outstanding] = [:]
    /// Prompt ids already settled, kept so their second answer is recognised.
    package private(set) var settledPrompts: [String: Bool] = [:]
    private var settledOrder: [String] = []
    /// `lateEffects` commands given up on, newest last: their type, by id.
    private var expired: [(id: String, type: String)] = []
    private var sequence = 0

    /// Whether a command of `type` waits for its response.
    package func awaits(_ type: String) -> Bool { outstanding.values.contains { $0.type == type } }

    /// `extension_ui_response` gets no response at all, so it is never tracked.
    package mutating func sent(id: String, type: String) {
        guard type != "extension_ui_response" else { return }
        sequence += 1
        outstanding[id] = Outstanding(id: id, type: type, sequence: sequence)
    }

    package mutating func received(_ response: PiResponse) -> Match {
        if let id = response.id {
            if let sent = outstanding.removeValue(forKey: id) {
                // A terminal's extension answers a steer or follow-up it could not hand to pi a
                // second time too (docs/EXTENSION.md), as pi's RPC mode answers a prompt.
                if Self.answeredTwice.contains(sent.type) { rememberPrompt(id, success: response.success ?? false) }
                return .settles(id: id, type: sent.type)
            }
            if let wasSuccess = settledPrompts[id] {
                settledPrompts.removeValue(forKey: id)
                if wasSuccess && response.success == false {
                    return .promptRejectedLate(id: id, error: response.error ?? "prompt rejected")
                }
                return .duplicate(id: id)
            }
            if let index = expired.firstIndex(where: { $0.id == id }) { return .settles(id: id, type: expired.remove(at: index).type) }
            return .unmatched
        }
        // No id. An unknown-command reply names its type; a thrown handler says "parse".
        let candidates = outstanding.values.sorted { $0.sequence < $1.sequence }
        let match: Outstanding?
        if let cmd = response.command, cmd != "parse" {
            match = candidates.first { $0.type == cmd }
        } else {
            // A command that can throw is the likely author; a slow `abort` or `new_session`
            // that is still waiting for pi is not.
            match =
                candidates.first { Self.mayFailWithoutID.contains($0.type) }
                ?? candidates.first { $0.type != "prompt" } ?? candidates.first
        }
        guard let found = match else { return .unmatched }
        outstanding.removeValue(forKey: found.id)
        return .settles(id: found.id, type: found.type)
    }

    /// The child died: everything outstanding fails.
    package mutating func drain() -> [String] {
        let ids = outstanding.keys.sorted()
        outstanding.removeAll()
        return ids
    }

    package mutating func cancel(_ id: String) {
        guard let sent = outstanding.removeValue(forKey: id), Self.lateEffects.contains(sent.type) else { return }
        expired.append((id, sent.type))
        if expired.count > 16 { expired.removeFirst() }
    }

    private mutating func rememberPrompt(_ id: String, success: Bool) {
        settledPrompts[id] = success
        settledOrder.append(id)
        if settledOrder.count > 64 {
            let old = settledOrder.removeFirst()
            settledPrompts.removeValue(forKey: old)
        }
    }
}
