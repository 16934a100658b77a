/// `chat:` — how the command layer treats chats, the same on every messenger.
package struct ChatSettings: Sendable, Equatable {
    /// `chat.senderPrefix`: put before a prompt from a shared channel (not a DM) so pi knows who
    /// wrote it; `{name}` becomes the sender's display name. Nil: prompts go as written.
    package var senderPrefix: String?
    /// `chat.progress`: the progress mode of a chat that has not chosen one with `/progress`.
    package var progress = ProgressMode.normal
}
