/// Who sent a session's latest prompt from a chat: the one a ping mentions.
struct Requester: Sendable, Equatable {
    /// The chat's key (`Chat.key`).
    let chatKey: String
    /// Their id on the messenger.
    let user: String
}
