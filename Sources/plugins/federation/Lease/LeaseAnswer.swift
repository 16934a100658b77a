/// What the database said to an attempt on a lease (`FederationStore.claim`): held by this
/// machine with its epoch, or by another until some time from now on the database's clock.
public enum LeaseAnswer: Sendable, Equatable {
    /// This machine holds it; `epoch` grows with every change of owner, never with a renewal.
    case held(epoch: Int64)
    /// Another machine holds it (or held it last), and it is free for this machine in `freeIn`
    /// (the head start it owes the preferred machine counted; negative: free already, for that long). `owner` is nil for a lease nobody has held yet.
    case heldBy(owner: String?, epoch: Int64, freeIn: Duration)
}
