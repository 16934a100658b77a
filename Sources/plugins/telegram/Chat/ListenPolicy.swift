import MessengerKit
import PiRelaySDK

/// Decides, without I/O, whether a message is one the relay answers. Private chats always. In
/// groups: commands for this bot (`/cmd` or `/cmd@our_name`, never `/cmd@another_bot`), and
/// messages that mention the bot or reply to it; with `requireMention` off, every message of a
/// configured or bound group. Other bots are never relayed.
///
/// A shared room (`telegram.sharedRooms`) is heard whole: the supervisor decides from what was
/// written which machine answers, so every bot there must read every message, and `/use` and `/new`
/// meant for another bot too (`/use@desktop_bot desktop web`), so that this machine knows it was
/// not picked.
struct ListenPolicy: Sendable {
    var botID: String
    var botUsername: String
    var requireMention: Bool
    /// Groups listed in `telegram.chats` or bound to a session.
    var groups: Set<String>
    var sharedRooms = SharedRooms.none
    /// Albums one of whose parts was for the relay: their other parts are too, though only one
    /// carries the caption that mentions the bot (the newest 64).
    private(set) var albums: [String] = []

    mutating func heard(album: String) {
        guard !albums.contains(album) else { return }
        albums.append(album)
        if albums.count > 64 { albums.removeFirst() }
    }

    func decide(_ message: TelegramMessage) -> ListenDecision {
        if message.from.isBot { return .ignore("from a bot") }
        if message.from.id.isEmpty { return .ignore("no sender (a channel post or an anonymous admin)") }
        if message.chat.type == "channel" { return .ignore("a channel post") }
        var text = message.text.trimmed()
        if text.isEmpty && message.files.isEmpty { return .ignore("nothing to relay") }
        var addressed = message.isPrivate
        let shared = sharedRooms.contains(message.chat.id, dm: message.isPrivate)
        if message.startsWithCommand, let commandEnd = text.firstIndex(where: \.isWhitespace) ?? Optional(text.endIndex) {
            let command = text[..<commandEnd]
            if let at = command.firstIndex(of: "@") {
                let forUs = command[command.index(after: at)...].lowercased() == botUsername.lowercased()
                guard forUs || (shared && ["/use", "/new"].contains(command[..<at].lowercased())) else {
                    return .ignore("a command for another bot")
                }
                text = String(command[..<at]) + text[commandEnd...]
            }
            addressed = true
        }
        let mention = "@" + botUsername
        if message.mentions.contains(where: { $0.lowercased() == mention.lowercased() }) {
            addressed = true
            text = Self.removing(mention, from: text)
        }
        if message.replyToFromID == botID { addressed = true }
        if let album = message.album, albums.contains(album) { addressed = true }
        if !message.isPrivate && !addressed && !shared {
            guard !requireMention, groups.contains(message.chat.id) else { return .ignore("a group message not addressed to the bot") }
        }
        if text.isEmpty && message.files.isEmpty { return .ignore("only the mention") }
        let chat = Chat(
            messenger: "telegram", channel: message.chat.id, thread: message.place.thread, user: message.from.id, userName: message.from.name,
            dm: message.isPrivate, mentioned: addressed)
        return .listen(chat: chat, text: text)
    }

    static func removing(_ mention: String, from text: String) -> String {
        var out = text
        let pattern = Regex<Substring>(verbatim: mention).ignoresCase()
        while let range = out.firstRange(of: pattern) { out.removeSubrange(range) }
        return out.trimmed()
    }
}
