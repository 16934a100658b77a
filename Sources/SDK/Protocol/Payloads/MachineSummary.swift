/// Another machine of a federation as its database shows it: its name, whether its daemon is
/// heard from, and the sessions and allowlists it last published (`federation.machines`).
public struct MachineSummary: Sendable, Equatable {
    /// The machine's name (`machine:` in its config.yaml).
    public var name: String
    /// Its daemon wrote a heartbeat recently (on the database's clock).
    public var online: Bool
    /// When its daemon last wrote one, ISO 8601.
    public var lastSeen: String
    /// Its sessions as it last published them.
    public var sessions: [SessionSummary]
    /// Who it lets use each messenger (configured and paired users), by messenger name.
    public var allowed: [String: [String]]
    /// The last revocation (`Revocation.number`) its daemon has taken in: a user revoked after
    /// it is not let in by what it published (it may not have dropped them yet, or never will:
    /// it is offline).
    public var revocationsApplied: Int

    /// A machine's summary.
    public init(
        name: String, online: Bool, lastSeen: String, sessions: [SessionSummary] = [], allowed: [String: [String]] = [:],
        revocationsApplied: Int = 0
    ) {
        self.name = name
        self.online = online
        self.lastSeen = lastSeen
        self.sessions = sessions
        self.allowed = allowed
        self.revocationsApplied = revocationsApplied
    }
}

extension MachineSummary: WirePayload {
    /// Reads it; `name` and `lastSeen` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "machine")
        self.init(
            name: try fields.string("name"), online: fields.bool("online", default: false), lastSeen: try fields.string("lastSeen"),
            sessions: fields.list("sessions", of: SessionSummary.self),
            allowed: (json["allowed"]?.objectValue ?? [:]).mapValues { ($0.arrayValue ?? []).compactMap(\.stringValue) },
            revocationsApplied: fields.optionalInt("revocationsApplied") ?? 0)
    }

    /// `{name, online, lastSeen, sessions, allowed?, revocationsApplied?}`.
    public var json: JSONValue {
        var object: JSONValue = ["name": .string(name), "online": .bool(online), "lastSeen": .string(lastSeen), "sessions": sessions.json]
        if !allowed.isEmpty { object["allowed"] = .object(allowed.mapValues { .array($0.map { .string($0) }) }) }
        if revocationsApplied > 0 { object["revocationsApplied"] = JSONValue(revocationsApplied) }
        return object
    }
}
