/// Who sent a session's latest prompt from a chat: the one a ping mentions.
package struct Requester: Sendable, Equatable {
    /// The chat's key (`Chat.key`).
    package let chatKey: String
    /// Their id on the messenger.
    package let user: String
}
