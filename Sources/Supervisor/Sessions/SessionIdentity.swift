import FoundationEssentials

/// What a session is from its creation on, and never changes: its id, folder and mark, and
/// whether its pi is a terminal's (which the daemon never starts or signals).
package struct SessionIdentity: Sendable {
    package let id: String
    package let cwd: String
    package let createdAt: Date
    /// The session's mark in chats that watch several (see `SessionMarker`).
    package let marker: String
    /// The session whose agent spawned this one (`spawn_session`), if one did.
    package let spawnedBy: String?
    /// Set for a terminal session.
    package let terminal: TerminalRecord?

    package init(record: SessionRecord) {
        id = record.id
        cwd = record.cwd
        createdAt = record.createdAt
        marker = record.marker ?? SessionMarker.palette[0]
        spawnedBy = record.spawnedBy
        terminal = record.terminal
    }
}
