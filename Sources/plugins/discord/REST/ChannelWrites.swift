import MessengerKit
import Synchronization

/// The send queue's allowance for a channel's message writes: one write at a time per channel and
/// kind (posts and edits are separate buckets at Discord, discord-api.md §6). The rate limiter
/// then holds that one write until its bucket, as Discord's headers describe it, has room: limits
/// are read, never assumed. Because only one waits there, the next write to go is chosen by the
/// queue when the previous one is done, most urgent first.
final class ChannelWrites: SendAllowance {
    /// A write in flight is finished (`done`) well before this; it only bounds a lost wake-up.
    static let recheck = 30.0

    private let busy = Mutex(Set<String>())

    func wait(chat: String, now: Double) -> Double {
        busy.withLock { $0.contains(chat) } ? Self.recheck : 0
    }

    func take(chat: String, now: Double) {
        busy.withLock { _ = $0.insert(chat) }
    }

    /// The write to `chat` is done (or failed): the next one may go.
    func done(chat: String) {
        busy.withLock { _ = $0.remove(chat) }
    }

    /// The queue's key for a write: its kind and its channel.
    static func key(_ kind: String, channel: String) -> String { kind + " " + channel }
}
