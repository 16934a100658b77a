/// `sessions:` — what the supervisor keeps per pi session and how it treats chat messages that
/// arrive while pi is working.
struct SessionSettings: Sendable, Equatable {
    /// What a chat message does while pi is busy with the previous one.
    enum BusyPolicy: String, Sendable, Equatable {
        /// Queued and sent to pi when it has finished.
        case followUp
        /// Sent at once, steering the running turn.
        case steer
    }

    /// `sessions.historyEvents`: events kept per session for replay, by count...
    var historyEvents = 2000
    /// `sessions.historyBytes`: ...and by size; whichever limit is hit first drops the oldest.
    var historyBytes = 4_194_304
    /// `sessions.defaultCwd`: the working directory for `/new` without one; nil means `$HOME`.
    var defaultCwd: String?
    /// `sessions.busyPolicy`
    var busyPolicy = BusyPolicy.followUp
    /// `sessions.spawnLimit`: sessions one session's agent may have started with `spawn_session`
    /// that are still there (ended ones do not count); 0 turns the tool off.
    var spawnLimit = 3
    /// `sessions.limits`
    var limits = SessionLimits()
}
