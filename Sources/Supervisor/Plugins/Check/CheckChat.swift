import PiRelaySDK

/// The chat a driver plays in (docs/PROTOCOL.md §10, the `start` op): where the check posts, and
/// the user who writes there.
package struct CheckChat: Sendable {
    package var target: Target
    package var user: String
    package var userName: String
    /// Whether the service edits messages in place (a transcript file does not).
    package var edits: Bool
    /// For a service whose users sign in by pairing (the web dashboard's link): the code the
    /// driver signs in with. The check takes it as pi-relayd takes a `pi-relayd pair` code, and
    /// the user is whoever the plugin names in that `chat.pair` (`user` is empty until then).
    package var pairing: String?
}
