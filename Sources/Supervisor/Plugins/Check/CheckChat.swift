import PiRelaySDK

/// The chat a driver plays in (docs/PROTOCOL.md §10, the `start` op): where the check posts, and
/// the user who writes there.
struct CheckChat: Sendable {
    var target: Target
    var user: String
    var userName: String
    /// Whether the service edits messages in place (a transcript file does not).
    var edits: Bool
}
