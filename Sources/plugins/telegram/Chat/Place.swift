import MessengerKit
import PiRelaySDK

/// Where a message goes in Telegram: a chat, and a forum topic in it. In the protocol's `Target`
/// and `Chat` a topic is the thread `"<chat id>/<topic id>"`: topic ids are only unique within
/// their chat, and bindings are keyed by thread.
struct Place: Sendable, Hashable, MessengerPlace {
    var chatID: String
    var topicID: Int?

    /// The protocol's thread for a topic.
    var thread: String? { topicID.map { "\(chatID)/\($0)" } }
    var target: Target { Target(channel: chatID, thread: thread) }
    /// A key per conversation, for lanes and live messages.
    var key: String { thread ?? chatID }

    /// `chat_id` and, in a topic, `message_thread_id`, for a Bot API call.
    func params(_ more: JSONValue = [:]) -> JSONValue {
        var object = more
        object["chat_id"] = .string(chatID)
        if let topicID { object["message_thread_id"] = JSONValue(topicID) }
        return object
    }
}

extension Place {
    /// Nil when the target names no chat id Telegram could take.
    init?(_ target: Target) {
        guard TelegramConfig.isChatID(target.channel) else { return nil }
        guard let thread = target.thread else {
            self.init(chatID: target.channel)
            return
        }
        guard let slash = thread.lastIndex(of: "/"), let topic = Int(thread[thread.index(after: slash)...]) else { return nil }
        self.init(chatID: target.channel, topicID: topic)
    }
}
