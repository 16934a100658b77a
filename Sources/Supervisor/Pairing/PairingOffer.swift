/// A pairing code waiting to be claimed, made by `pi-relayd pair MESSENGER`.
struct PairingOffer: Sendable, Equatable {
    let messenger: String
    let code: String
    let expires: ContinuousClock.Instant
    /// The terminal asks before adding the user (no `--yes`).
    let confirm: Bool
    var wrongTries = 0
}
