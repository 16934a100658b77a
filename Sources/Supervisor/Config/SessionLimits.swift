/// `sessions.limits:` — how long a session may sit idle or run, how many prompts may wait in
/// it, and how long pi may take to answer a command (issue 17 point 10, after the vibeos bot).
package struct SessionLimits: Sendable, Equatable {
    /// What an idle session's time-to-live ends.
    package enum IdleAction: String, Sendable, Equatable {
        /// The session is ended (its pi stopped) and leaves the chats.
        case end
        /// pi starts a new conversation (`new_session`); the session stays.
        case newConversation
    }

    /// What a chat message does to the conversation it goes to.
    package enum MessageAction: String, Sendable, Equatable {
        /// It continues the conversation.
        case keep
        /// pi starts a new conversation for it first (seed 003's `session_ttl_seconds = 0`).
        case newConversation
    }

    /// `onMessage`: `keep`, or `newConversation` for a fresh conversation per chat message.
    package var onMessage = MessageAction.keep
    /// `idleSeconds`: a session with no activity for this long is ended or starts afresh; 0 is off.
    package var idleSeconds = 0
    /// `onIdle`: `end` or `newConversation`.
    package var onIdle = IdleAction.end
    /// `maxRunSeconds`: a run going on for longer is aborted and the chats told why; 0 is off.
    package var maxRunSeconds = 0
    /// `sweepSeconds`: how often both are checked.
    package var sweepSeconds = 30
    /// `queueMax`: prompts that may wait in a busy session (pi's queue); one more is refused,
    /// and the sender is told. 0 is no bound.
    package var queueMax = 10
    /// `commandSeconds`: how long pi may take to answer a command whose own limit is not longer;
    /// a pi that does not answer in time is reported and its session restarted.
    package var commandSeconds = 60
}
