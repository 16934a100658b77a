/// What became of a request its sender took back (`FederationStore.withdraw`).
public enum Withdrawal: Sendable, Equatable {
    /// It was there, untaken, and is gone: it never runs.
    case withdrawn
    /// Its machine took it first: it may run, or have run.
    case taken
    /// No such request: the write that was to make it never reached the database, or was rolled
    /// back. Nothing runs: one written later is dated when it was reserved (`ReservedRequest`),
    /// too long ago for any machine to take.
    case absent
}
