import FoundationEssentials
import PiRelaySDK

/// A chat watching several sessions (issue 17 point 3): one is active and takes the chat's plain
/// messages; the others go on posting there, each post marked with its session.
extension ChatBindings {
    /// Makes `sessionID` the chat's active session; the one active before stays watched.
    package func watch(_ chat: Chat, _ sessionID: String) {
        guard var binding = bindings[chat.key] else { return bind(chat, to: sessionID) }
        let others = binding.watched.filter { $0 != sessionID }
        binding.sessionID = sessionID
        binding.also = others.isEmpty ? nil : others
        bindings[chat.key] = binding
        save()
        changed.yield(sessionID)
    }

    /// The sessions a chat watches, the active one first; empty when it watches none.
    package func watched(_ key: String) -> [String] {
        bindings[key]?.watched ?? []
    }

    /// No chat watches the session any more (it ended, or was forgotten). A chat for which it
    /// was the active session makes the next one it watches active, or watches nothing.
    /// `only`: these chats alone (the one that ended it, before the others are told).
    package func unwatchEverywhere(_ sessionID: String, only keys: Set<String>? = nil) {
        var changedAny = false
        for (key, binding) in bindings where binding.watched.contains(sessionID) && keys.map({ $0.contains(key) }) ?? true {
            changedAny = true
            let rest = binding.watched.filter { $0 != sessionID }
            guard let first = rest.first else {
                bindings.removeValue(forKey: key)
                continue
            }
            var kept = binding
            kept.sessionID = first
            kept.also = rest.count > 1 ? Array(rest.dropFirst()) : nil
            kept.aliases?[sessionID] = nil
            bindings[key] = kept
        }
        guard changedAny else { return }
        save()
        changed.yield(sessionID)
    }

    /// The name this chat gave the session, if it gave one.
    package func alias(_ key: String, sessionID: String) -> String? {
        bindings[key]?.aliases?[sessionID]
    }

    /// Names the session for this chat; nil clears the name.
    package func setAlias(_ key: String, sessionID: String, to alias: String?) {
        guard var binding = bindings[key] else { return }
        var aliases = binding.aliases ?? [:]
        aliases[sessionID] = alias
        binding.aliases = aliases.isEmpty ? nil : aliases
        bindings[key] = binding
        save()
    }

    /// The session this chat calls `alias`, if it calls one so (case does not matter).
    package func session(aliased alias: String, in key: String) -> String? {
        bindings[key]?.aliases?.first { $0.value.lowercased() == alias.lowercased() }?.key
    }
}
