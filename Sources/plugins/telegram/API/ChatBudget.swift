import MessengerKit
import Synchronization

/// The bot's write budget (`SendPacer`) behind a lock: the send queue takes writes from it in
/// their order of urgency, and a 429 holds a chat in it.
final class ChatBudget: SendAllowance {
    let pacer: Mutex<SendPacer>

    init(_ pacer: SendPacer) {
        self.pacer = Mutex(pacer)
    }

    func wait(chat: String, now: Double) -> Double {
        pacer.withLock { $0.wait(chat: chat, now: now) }
    }

    func take(chat: String, now: Double) {
        pacer.withLock { _ = $0.reserve(chat: chat, now: now) }
    }
}
