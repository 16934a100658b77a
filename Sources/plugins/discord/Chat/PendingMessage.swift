import DiscordPayloads
import PiRelaySDK

/// A user message accepted for the supervisor: everything `chat.message` needs, journaled until
/// the supervisor answered.
struct PendingMessage: Codable, Sendable, Equatable {
    var id: String
    var chat: Chat
    var text: String
    var attachments: [IncomingMessage.Attachment]
}
