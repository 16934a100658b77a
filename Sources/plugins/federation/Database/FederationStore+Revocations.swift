import PiRelaySDK

extension FederationStore {
    /// Writes the revocations `machine`'s daemon made; each once (by its stamp), dated now on the
    /// database's clock. Its daemon lists them again until a report numbers them.
    public func record(revocations: [Revocation], by machine: String) async throws(FederationError) {
        guard !revocations.isEmpty else { return }
        try await within("writing revocations") {
            for revocation in revocations {
                _ = try await client.query(
                    """
                    INSERT INTO relay_revocations (stamp, messenger, user_id, machine)
                    VALUES (\(revocation.stamp), \(revocation.messenger), \(revocation.user), \(machine)) ON CONFLICT (stamp) DO NOTHING
                    """)
            }
        }
    }

    /// Every revocation, in the database's order.
    public func revocations() async throws(FederationError) -> [RevocationRow] {
        try await within("reading revocations") {
            var out: [RevocationRow] = []
            for row in try await client.query(
                "SELECT id, stamp, messenger, user_id, machine, EXTRACT(EPOCH FROM now() - revoked_at)::float8 FROM relay_revocations ORDER BY id")
            {
                out.append(
                    RevocationRow(
                        number: try row.int(0), stamp: try row.string(1), messenger: try row.string(2), user: try row.string(3),
                        machine: try row.string(4), secondsAgo: try row.double(5)))
            }
            return out
        }
    }
}
