import MessengerKit
import PiRelaySDK

/// A user message taken in and not yet handed over to the supervisor: what a restarted plugin
/// hands over again.
struct PendingMessage: InboxMessage {
    /// `<chat id>:<message id>`: message ids are unique per chat only. Also the supervisor's
    /// `messageId`, by which it acts on a message once.
    var id: String
    var chat: Chat
    var text: String
    var files: [TelegramMessage.File]
    var messageID: Int
    /// The update that brought it: a bot shared by several machines confirms no update past a
    /// message still pending (nil in journals written before this was kept).
    var update: Int?
    /// The album it is part of (`TelegramMessage.album`; nil alone, and in older journals).
    var album: String?

    var lane: String { chat.key }
    var group: String? { album }

    /// An album is one prompt: its captions (the user types one, on any of its parts) and every
    /// part's files.
    func joined(with later: [PendingMessage]) -> PendingMessage {
        var whole = self
        whole.text = ([text] + later.map(\.text)).filter { !$0.isEmpty }.joined(separator: "\n\n")
        whole.files += later.flatMap(\.files)
        return whole
    }

    static var remembered: Int { 512 }
}

/// The inbox's journal: the kit's, over this messenger's pending message.
typealias InboxRecord = MessengerKit.InboxRecord<PendingMessage>
