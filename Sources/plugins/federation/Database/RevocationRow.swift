/// One row of `relay_revocations` as `FederationStore.revocations` reads it.
public struct RevocationRow: Sendable, Equatable {
    /// The database's order.
    public var number: Int
    public var stamp: String
    public var messenger: String
    public var user: String
    /// The machine it was made on.
    public var machine: String
    /// How long ago it was made, on the database's clock: a reader dates it on its own clock.
    public var secondsAgo: Double
}
