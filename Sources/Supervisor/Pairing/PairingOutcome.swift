import PiRelaySDK

/// What a `pi-relayd pair` terminal waits for.
package enum PairingOutcome: Sendable {
    /// Claimed; the terminal is asked to confirm.
    case claimed(Chat)
    /// Claimed and added (`--yes`).
    case paired(Chat)
    case expired
    /// Void: five wrong tries, or posted in a group.
    case voided(String)
    /// A newer `pair` for the same messenger took its place.
    case replaced
    /// The terminal went away.
    case hungUp
}
