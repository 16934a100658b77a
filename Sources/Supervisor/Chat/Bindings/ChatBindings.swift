import FoundationEssentials
import Logging
import PiRelaySDK

/// Which chat watches which session, kept in `bindings.json`. The chat desk changes them; the
/// delivery, the control socket and welcomes read them.
package actor ChatBindings {
    private let store: StateFile<Binding>
    private let logger: Logger
    package var bindings: [String: Binding] = [:]
    /// Why the last save failed, until one succeeds; `status` shows it.
    package private(set) var saveError: String?
    /// The ids of sessions whose watching chats changed, for whoever shows that (the footer of
    /// an attached terminal pi).
    package nonisolated let changes: AsyncStream<String>
    package let changed: AsyncStream<String>.Continuation

    /// `saved` is what the daemon read from `store` at start.
    package init(store: StateFile<Binding>, saved: [Binding], logger: Logger) {
        self.store = store
        self.logger = logger
        for binding in saved { bindings[binding.key] = binding }
        (changes, changed) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    package func binding(_ key: String) -> Binding? { bindings[key] }

    /// Makes `sessionID` the chat's only session (a configured channel, a thread, a pairing).
    package func bind(_ chat: Chat, to sessionID: String) {
        bindings[chat.key] = Binding(
            key: chat.key, messenger: chat.messenger, channel: chat.channel, thread: chat.thread,
            sessionID: sessionID, user: chat.dm ? chat.user : nil, since: Date())
        save()
        changed.yield(sessionID)
    }

    /// `chat`'s user spoke in it. A direct conversation is its user's (`users revoke` unbinds
    /// it); one another user speaks in too (every signed-in browser shares a session's page) is
    /// nobody's, so revoking one user does not take it from the others.
    package func heard(from chat: Chat) {
        guard chat.dm, let owner = bindings[chat.key]?.user, owner != chat.user else { return }
        bindings[chat.key]?.user = nil
        save()
    }

    /// Every chat watching `old` watches `new` instead (a terminal's `/new`, `/resume` or `/fork`).
    package func move(from old: String, to new: String) {
        var moved = false
        for (key, binding) in bindings where binding.watched.contains(old) {
            if binding.sessionID == old { bindings[key]?.sessionID = new }
            bindings[key]?.also = binding.also?.map { $0 == old ? new : $0 }
            if let alias = binding.aliases?[old] {
                bindings[key]?.aliases?[old] = nil
                bindings[key]?.aliases?[new] = alias
            }
            moved = true
        }
        if moved {
            save()
            changed.yield(new)
        }
    }

    package func unbind(key: String) {
        guard let gone = bindings.removeValue(forKey: key) else { return }
        save()
        changed.yield(gone.sessionID)
    }

    /// `users revoke`: the user's direct messages watch nothing more, so no run's output, notice
    /// or approval question reaches them. Returns the bindings removed.
    package func unbindDirectMessages(of user: String, on messenger: String) -> [Binding] {
        let gone = bindings.values.filter { $0.isDirectMessage(of: user, on: messenger) }
        guard !gone.isEmpty else { return [] }
        for binding in gone { bindings[binding.key] = nil }
        save()
        for binding in gone { changed.yield(binding.sessionID) }
        return gone
    }

    /// Whether any chat watches the session; no list is built (this runs for every pi line).
    package func isWatched(_ sessionID: String) -> Bool {
        bindings.values.contains { $0.sessionID == sessionID || $0.also?.contains(sessionID) == true }
    }

    /// Every chat watching the session, by key: as the active session or as one of several.
    /// Each binding names this session, so posts made from it go to the right place.
    package func chats(of sessionID: String) -> [Binding] {
        bindings.values.compactMap { binding in
            if binding.sessionID == sessionID { return binding }
            guard binding.also?.contains(sessionID) == true else { return nil }
            var watching = binding
            watching.sessionID = sessionID
            return watching
        }.sorted { $0.key < $1.key }
    }

    /// A messenger's bindings as its welcome lists them.
    package func summaries(messenger: String) -> [BindingSummary] {
        bindings.values.filter { $0.messenger == messenger }.sorted { $0.key < $1.key }.map(\.summary)
    }

    /// Where a command's file or image goes: the chat's binding, or the chat itself when it is
    /// not bound (it named the session with `/to`, say).
    package func replyBinding(_ chat: Chat, sessionID: String) -> Binding {
        bindings[chat.key]
            ?? Binding(
                key: chat.key, messenger: chat.messenger, channel: chat.channel, thread: chat.thread,
                sessionID: sessionID, user: nil, since: Date())
    }

    package func save() {
        do {
            try store.save(Array(bindings.values))
            saveError = nil
        } catch {
            if saveError == nil { logger.error("cannot save bindings: \(error); keeping them in memory") }
            saveError = "\(error)"
        }
    }
}
