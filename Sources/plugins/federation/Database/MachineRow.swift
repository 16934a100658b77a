/// One machine's row as `FederationStore.machines` reads it.
public struct MachineRow: Sendable, Equatable {
    public var name: String
    /// Heard from within the offline limit, on the database's clock.
    public var online: Bool
    /// Its last heartbeat, ISO 8601 in UTC.
    public var lastSeen: String
    /// Its sessions as it published them, a JSON array.
    public var sessions: String
    /// Who it lets use each messenger, a JSON object (messenger to user ids).
    public var allowed: String = "{}"
    /// The last revocation its daemon took in (`relay_revocations.id`).
    public var revocationsApplied = 0
}
