import FoundationEssentials
import MessengerKit
import Synchronization

/// The send queue's allowance for a channel's message writes: one write at a time per channel and
/// kind (posts and edits are separate buckets at Discord, discord-api.md §6). The rate limiter
/// then holds that one write until its bucket, as Discord's headers describe it, has room: limits
/// are read, never assumed. Because only one waits there, the next write to go is chosen by the
/// queue when the previous one is done, most urgent first. A live view or a notice also leaves
/// the bucket's last request of its window (as the last answer counted it) to a question or a
/// final, which then never waits for the window to end.
final class ChannelWrites: SendAllowance {
    /// A write in flight is finished (`done`) well before this; it only bounds a lost wake-up.
    static let recheck = 30.0

    private struct Room {
        var remaining: Int
        /// Seconds since 1970.
        var resetAt: Double
    }

    private let state = Mutex((busy: Set<String>(), rooms: [String: Room]()))

    func wait(chat: String, now: Double) -> Double {
        wait(chat: chat, now: now, keeping: 0)
    }

    func wait(chat: String, now: Double, keeping spare: Int) -> Double {
        state.withLock { state in
            if state.busy.contains(chat) { return Self.recheck }
            guard spare > 0, let room = state.rooms[chat], room.resetAt > now, room.remaining <= spare else { return 0 }
            return room.resetAt - now
        }
    }

    func take(chat: String, now: Double) {
        state.withLock { _ = $0.busy.insert(chat) }
    }

    /// The write to `chat` is done (or failed): the next one may go. `remaining` requests are
    /// left of its bucket until `resetAt` (seconds since 1970), when the answer said so.
    func done(chat: String, remaining: Int? = nil, resetAt: Double? = nil) {
        state.withLock { state in
            state.busy.remove(chat)
            if let remaining, let resetAt {
                state.rooms[chat] = Room(remaining: remaining, resetAt: resetAt)
            } else {
                state.rooms[chat] = nil
            }
            if state.rooms.count > 1000 {
                let now = Date().timeIntervalSince1970
                state.rooms = state.rooms.filter { $0.value.resetAt > now }
            }
        }
    }

    /// The queue's key for a write: its kind and its channel.
    static func key(_ kind: String, channel: String) -> String { kind + " " + channel }
}
