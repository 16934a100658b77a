import PiRelaySDK

/// Threads opened by the daemon itself, for sessions an agent spawned: the messenger opens one
/// (`chat.thread`) and the daemon binds it.
extension ChatDelivery {
    /// Opens a thread for `session` beside the chat `from` (in its channel: threads do not nest)
    /// and binds it to the session. Throws with a reason a user can read when the messenger
    /// cannot: a DM has no threads, a messenger may have none, or it may be down.
    package func openThread(for sessionID: String, named name: String, from chat: Binding) async throws -> Binding {
        guard chat.user == nil else { throw RemoteError(code: .unavailable, message: "a direct message has no threads") }
        guard let slot = await host.slot(chat.messenger) else {
            throw RemoteError(code: .unavailable, message: "the \(chat.messenger) plugin is not running")
        }
        let place: Target
        do {
            place = try await slot.request(
                .chatThread, ChatThreadParams(target: Target(channel: chat.channel), name: name, sessionID: sessionID), timeout: .seconds(30))
        } catch let error as RemoteError where error.code == .methodNotFound {
            throw RemoteError(code: .unavailable, message: "\(chat.messenger) cannot open threads")
        }
        guard let thread = place.thread else {
            throw RemoteError(code: .unavailable, message: "\(chat.messenger) answered chat.thread without a thread")
        }
        let threadChat = Chat(messenger: chat.messenger, channel: place.channel, thread: thread, user: "", dm: false)
        await bindings.bind(threadChat, to: sessionID)
        guard let binding = await bindings.binding(threadChat.key) else {
            throw RemoteError(code: .internal, message: "the new thread's binding was not kept")
        }
        return binding
    }

    /// A notice to one chat, with buttons (a spawned session's "watch it here").
    package func notify(_ chat: Binding, sessionID: String, _ text: String, actions: [[Reply.Action]] = []) async {
        let line = dialect(of: chat.messenger).escape(await redacted(text))
        await deliver(
            chat.messenger, .chatPost, ChatPostParams(target: chat.target, kind: .notice, sessionID: sessionID, text: line, actions: actions))
    }
}
