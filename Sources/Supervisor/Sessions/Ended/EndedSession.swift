import FoundationEssentials

/// A session pi-relayd spawned and that has ended, whose pi session file stays on disk until
/// `sessions.keepDays` after its end (`EndedSessions`).
package struct EndedSession: Codable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var sessionFile: String
    package var endedAt: Date
}
