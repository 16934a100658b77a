/// Where a messenger posts: a chat, and maybe a thread or topic in it. Each messenger has its
/// own; the kit needs only a key per conversation.
public protocol MessengerPlace: Sendable, Hashable {
    /// One key per conversation (a chat, or a thread in it), for lanes and live messages. Saved
    /// in state files, so it never changes for the same place.
    var key: String { get }
}
