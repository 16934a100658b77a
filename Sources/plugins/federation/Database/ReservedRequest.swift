/// A request's id and date, taken from the database before the request is written
/// (`FederationStore.reserveRequest`).
public struct ReservedRequest: Sendable, Equatable {
    public let id: Int64
    /// The database's clock when it was reserved, as PostgreSQL writes a `timestamptz`.
    public let at: String

    public init(id: Int64, at: String) {
        self.id = id
        self.at = at
    }
}
