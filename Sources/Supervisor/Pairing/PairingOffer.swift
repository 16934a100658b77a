/// A pairing code waiting to be claimed, made by `pi-relayd pair MESSENGER`.
package struct PairingOffer: Sendable, Equatable {
    package let messenger: String
    package let code: String
    package let expires: ContinuousClock.Instant
    /// The terminal asks before adding the user (no `--yes`).
    package let confirm: Bool
    package var wrongTries = 0
    /// Made by `/relay pair` in a terminal pi: the claiming chat is bound to this session too,
    /// and nobody waits for the outcome (the terminal sees the chat arrive in its footer).
    package var sessionID: String? = nil
    /// The name the bound chat gives that session (`/alias`).
    package var label: String? = nil
}
