import PiRelaySDK

/// A user message taken in and not yet handed over to the supervisor: what a restarted plugin
/// hands over again.
struct PendingMessage: Codable, Sendable, Equatable {
    /// `<chat id>:<message id>`: message ids are unique per chat only. Also the supervisor's
    /// `messageId`, by which it acts on a message once.
    var id: String
    var chat: Chat
    var text: String
    var files: [TelegramMessage.File]
    var messageID: Int
}
