import DiscordPayloads
import MessengerKit
import PiRelaySDK

/// A user message accepted for the supervisor: everything `chat.message` needs, journaled until
/// the supervisor answered.
struct PendingMessage: InboxMessage {
    var id: String
    var chat: Chat
    var text: String
    var attachments: [IncomingMessage.Attachment]

    var lane: String { chat.postChannel }

    static var remembered: Int { 256 }
}

/// The inbox's journal: the kit's, over this messenger's pending message.
typealias InboxRecord = MessengerKit.InboxRecord<PendingMessage>
