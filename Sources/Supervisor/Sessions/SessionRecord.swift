import FoundationEssentials

/// What is saved of a session so it comes back after a daemon restart or `kill -9`.
package struct SessionRecord: Codable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var cwd: String
    /// pi's own session file; a restarted child resumes it with `--session <path>`.
    package var sessionFile: String?
    package var model: String?
    package var createdAt: Date
    package var lastActivity: Date
    /// The pi child's pid while it runs, so a daemon killed with -9 can stop the orphan before
    /// resuming the same session file.
    package var pid: Int32?
    /// Runs numbered so far. Run ids continue from here after a restart, so they never repeat: a
    /// messenger keys the messages that show a run by its id, and a reused id would make a new
    /// run's answer overwrite an old one's.
    package var runs: Int?
    /// The run going on when the record was saved (set as a run starts, cleared as it ends): a
    /// daemon killed mid-run finds it when it restarts and tells the chats that run was cut off.
    package var activeRun: String?
    /// The dialogs open when the record was saved (nil when none). A dialog lives in its pi
    /// process, so a daemon killed with -9 loses them with it; the restarted daemon closes each
    /// in the chats, whose messages would otherwise keep buttons that reach nothing.
    package var openQuestions: [PendingQuestion]?
    /// Set for an interactive pi attached through the extension, which the daemon never starts,
    /// resumes or signals (nil for the pi children it spawns).
    package var terminal: TerminalRecord?
    /// The session whose agent started this one with `spawn_session`, which counts it against
    /// `sessions.spawnLimit` while it lasts (nil for sessions people started).
    package var spawnedBy: String?
    /// The session's mark in chats that watch several (an emoji), kept for its lifetime.
    package var marker: String?
}

/// What is kept of an attached terminal session.
package struct TerminalRecord: Codable, Sendable, Equatable {
    /// pi's own session id, which the session id is derived from.
    package var piSessionID: String
}
