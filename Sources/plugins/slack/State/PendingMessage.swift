import MessengerKit
import PiRelaySDK

/// A user message or `/pi` command taken in and not yet handed over to the supervisor: what a
/// restarted plugin hands over again.
struct PendingMessage: InboxMessage {
    /// `<channel>:<ts>` for a message, `cmd:<trigger id>` for a command. Also the supervisor's
    /// `messageId`, by which it acts on a message once.
    var id: String
    var chat: Chat
    var text: String
    var files: [SlackEvent.File]
    /// The message's `ts`, for the status reaction; nil for a command.
    var ts: String?

    var lane: String { Self.lane(chat) }

    /// A thread's messages in order, apart from the rest of its channel's.
    static func lane(_ chat: Chat) -> String { chat.thread.map { chat.channel + "/" + $0 } ?? chat.channel }

    static var remembered: Int { 2000 }
    /// Released plugins kept these ids under "messages" (beside Socket Mode's "events").
    static var seenKey: String { "messages" }
}

/// The inbox's journal: the kit's, over this messenger's pending message.
typealias InboxRecord = MessengerKit.InboxRecord<PendingMessage>
