/// A pairing code waiting to be claimed, made by `pi-relayd pair MESSENGER`.
struct PairingOffer: Sendable, Equatable {
    let messenger: String
    let code: String
    let expires: ContinuousClock.Instant
    /// The terminal asks before adding the user (no `--yes`).
    let confirm: Bool
    var wrongTries = 0
    /// Made by `/relay pair` in a terminal pi: the claiming chat is bound to this session too,
    /// and nobody waits for the outcome (the terminal sees the chat arrive in its footer).
    var sessionID: String? = nil
    /// The name the bound chat gives that session (`/alias`).
    var label: String? = nil
}
