/// `sessions:` — what the supervisor keeps per pi session and how it treats chat messages that
/// arrive while pi is working.
package struct SessionSettings: Sendable, Equatable {
    /// What a chat message does while pi is busy with the previous one.
    package enum BusyPolicy: String, Sendable, Equatable {
        /// Queued and sent to pi when it has finished.
        case followUp
        /// Sent at once, steering the running turn.
        case steer
    }

    /// `sessions.historyEvents`: events kept per session for replay, by count...
    package var historyEvents = 2000
    /// `sessions.historyBytes`: ...and by size; whichever limit is hit first drops the oldest.
    package var historyBytes = 4_194_304
    /// `sessions.defaultCwd`: the working directory for `/new` without one; nil means `$HOME`.
    package var defaultCwd: String?
    /// `sessions.busyPolicy`
    package var busyPolicy = BusyPolicy.followUp
    /// `sessions.spawnLimit`: sessions one session's agent may have started with `spawn_session`
    /// that are still there (ended ones do not count); 0 turns the tool off.
    package var spawnLimit = 3
    /// `sessions.limits`
    package var limits = SessionLimits()
    /// `sessions.keepDays`: the pi session files of sessions pi-relayd started are removed this
    /// many days after the session ended; 0 keeps them (the default). Never a terminal's.
    package var keepDays = 0
}
