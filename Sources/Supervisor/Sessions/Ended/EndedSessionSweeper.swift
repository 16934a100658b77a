import FoundationEssentials

/// Which ended sessions' files are due for removal (`sessions.keepDays` after their end), decided
/// without I/O.
package struct EndedSessionSweeper: Sendable {
    package let keepDays: Int

    /// The entries whose time is up; none when keeping is unlimited (`keepDays` 0).
    package func due(_ ended: [EndedSession], now: Date) -> [EndedSession] {
        guard keepDays > 0 else { return [] }
        let keep = TimeInterval(keepDays) * 86_400
        return ended.filter { now.timeIntervalSince($0.endedAt) >= keep }
    }
}
