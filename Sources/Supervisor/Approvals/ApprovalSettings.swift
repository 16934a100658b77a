import PiRelaySDK

/// `approvals:`: opt-in gates on risky tool calls, for spawned and terminal sessions alike.
package struct ApprovalSettings: Sendable, Equatable {
    /// `approvals.timeoutSeconds`: a gate nobody answers in this time denies the call.
    package var timeout: Duration = .seconds(300)
    /// `approvals.rules`: the rules of every session.
    package var rules: [ApprovalRule] = []
    /// `approvals.sessions.NAME.rules`: more rules for the session named NAME.
    package var sessionRules: [String: [ApprovalRule]] = [:]

    /// The rules a session's extension applies: everyone's, then its own.
    package func rules(forSession name: String) -> [ApprovalRule] {
        rules + (sessionRules[name] ?? [])
    }

    /// Why a session named `old` may not be renamed `new`: gates are fixed in pi's environment
    /// at its start and looked up by name, so a rename would quietly drop the rules written for
    /// the old name at pi's next start, or leave the running pi without the new name's.
    package func renameRefusal(from old: String, to new: String) -> String? {
        guard old != new, let named = [old, new].first(where: { sessionRules[$0] != nil }) else { return nil }
        return
            "approvals.sessions.\(named) in config.yaml gives that name its own approval rules; a rename would change which gates the session has. Rename it in config.yaml too, then restart pi-relayd, or choose another name."
    }

    /// The gates as the extension reads them; nil when the session has none.
    package func extensionJSON(forSession name: String) -> JSONValue? {
        let rules = rules(forSession: name)
        guard !rules.isEmpty else { return nil }
        return ["timeoutSeconds": JSONValue.number(timeout.inSeconds), "rules": .array(rules.map(\.json))]
    }
}
