import MessengerKit
import PiRelaySDK

/// Decides, without I/O, whether an event is one the relay answers. DMs always. In channels:
/// messages that mention the bot, replies in a thread the bot opened for a session, and with
/// `requireMention` off every message of a configured or bound channel. The bot's own posts
/// (`bot_id`, or its user id), other bots, and subtypes that are not a user writing (edits,
/// deletions, joins…) never are: they would loop or act on things nobody asked. A shared room
/// (`slack.sharedRooms`) is heard whole: the supervisor decides which machine answers there.
struct ListenPolicy: Sendable {
    /// Subtypes that are a user writing: a file shared with text, a thread reply also sent to
    /// the channel.
    static let userSubtypes: Set<String> = ["file_share", "thread_broadcast"]

    var botUser: String
    var requireMention: Bool
    /// Channels listed in `slack.channels` or bound to a session.
    var channels: Set<String>
    /// Threads (`channel/ts`) the bot opened for a session: they are for the bot.
    var threads: Set<String>
    var sharedRooms = SharedRooms.none

    func decide(_ event: SlackEvent) -> ListenDecision {
        if event.botID != nil { return .ignore("from a bot") }
        if event.user.isEmpty { return .ignore("no user") }
        if !botUser.isEmpty && event.user == botUser { return .ignore("the bot's own message") }
        if event.hidden { return .ignore("a hidden message") }
        if let subtype = event.subtype, !Self.userSubtypes.contains(subtype) { return .ignore("subtype \(subtype)") }
        let mention = "<@" + botUser + ">"
        var text = event.text
        var addressed = event.isDM || event.type == "app_mention"
        if !botUser.isEmpty, text.contains(mention) {
            addressed = true
            text = text.replacing(mention, with: "")
        }
        text = Self.unescaped(text).trimmed()
        if let thread = event.threadTS, threads.contains(event.channel + "/" + thread) { addressed = true }
        if !addressed && !sharedRooms.contains(event.channel, dm: event.isDM) {
            guard !requireMention, channels.contains(event.channel) else { return .ignore("a channel message not addressed to the bot") }
        }
        if text.isEmpty && event.files.isEmpty { return .ignore("nothing to relay") }
        let chat = Chat(
            messenger: "slack", channel: event.channel, thread: event.isDM ? nil : event.threadTS, user: event.user, dm: event.isDM,
            mentioned: addressed)
        return .listen(chat: chat, text: text)
    }

    /// Slack escapes `&`, `<` and `>` in what users type; the agent gets what they typed.
    static func unescaped(_ text: String) -> String {
        text.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&amp;", with: "&")
    }
}
