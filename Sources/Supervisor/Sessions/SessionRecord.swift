import Foundation

/// What is saved of a session so it comes back after a daemon restart or `kill -9`.
struct SessionRecord: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var cwd: String
    /// pi's own session file; a restarted child resumes it with `--session <path>`.
    var sessionFile: String?
    var model: String?
    var createdAt: Date
    var lastActivity: Date
    /// The pi child's pid while it runs, so a daemon killed with -9 can stop the orphan before
    /// resuming the same session file.
    var pid: Int32?
}
