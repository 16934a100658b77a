/// Why the database does not answer. The client behind the store retries its connections
/// quietly, so a query that times out says only that; one connection of its own, made on
/// purpose, gets the reason (refused, no such host, a certificate from another CA, a wrong
/// password) for the log and `status`.
struct DatabaseProbe: Sendable {
    let address: DatabaseAddress

    /// The reason a connection fails now, or nil when one succeeds.
    func reason(within limit: Duration = .seconds(5)) async -> String? {
        do {
            let address = address
            return try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    let connection = try await DatabaseConnection.connect(to: address)
                    await connection.close()
                    return nil
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return "no answer within \(limit)"
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        } catch {
            return FederationError.database("connecting", error).description
        }
    }
}
