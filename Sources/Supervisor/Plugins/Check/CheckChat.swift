import PiRelaySDK

/// The chat a driver plays in (docs/PROTOCOL.md §10, the `start` op): where the check posts, and
/// the user who writes there.
package struct CheckChat: Sendable {
    package var target: Target
    package var user: String
    package var userName: String
    /// Whether the service edits messages in place (a transcript file does not).
    package var edits: Bool
}
