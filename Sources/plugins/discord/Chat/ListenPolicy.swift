import DiscordPayloads
import FoundationEssentials
import MessengerKit
import PiRelaySDK

/// Decides, without I/O, whether a message is one the relay answers: DMs; configured or bound
/// channels; threads the supervisor bound or the plugin created; threads under a configured
/// channel. In guild channels (not bound threads) a mention may be required. The bot's own
/// messages, other bots', webhooks' and system messages are never relayed.
///
/// Several machines may share one bot token (each sees every event): DMs are then answered by
/// the one whose `discord.dms` is `answer`, and slash commands and buttons in a server only by
/// the machine whose channels they are used in.
///
/// A shared room (`discord.sharedRooms`: one channel, several machines each with its own bot) is
/// heard whole, mention or not: the supervisor decides which machine answers there.
struct ListenPolicy: Sendable {
    var botUserID: String
    var channels: Set<String>
    var threads: [String: ThreadInfo]
    var boundThreads: Set<String>
    var requireMention: Bool
    /// `discord.dms`: false when another machine sharing the token answers DMs.
    var answersDMs = true
    /// Slash commands and buttons are answered in every server channel: no `discord.channels`
    /// names this machine's, and it answers DMs (so it is not one of several sharing the token).
    var ownsEveryChannel = false
    var sharedRooms = SharedRooms.none

    func decide(_ message: IncomingMessage) -> ListenDecision {
        if message.authorID == botUserID { return .ignore("own message") }
        if message.authorIsBot || message.webhookID != nil { return .ignore("from a bot or webhook") }
        guard message.type == 0 || message.type == 19 else { return .ignore("system message (type \(message.type))") }
        let mentioned =
            message.mentionIDs.contains(botUserID) || message.content.contains("<@\(botUserID)>") || message.content.contains("<@!\(botUserID)>")
        let text = Self.withoutMention(message.content, bot: botUserID)
        if text.isEmpty && message.attachments.isEmpty { return .ignore("empty message") }
        if message.isDM {
            guard answersDMs else { return .ignore("a DM, which another machine answers (discord.dms: ignore)") }
            return .listen(
                chat: Chat(
                    messenger: Chat.discord, channel: message.channelID, thread: nil, guild: nil, user: message.authorID,
                    userName: message.authorName,
                    dm: true, mentioned: mentioned), text: text)
        }
        if let thread = threads[message.channelID] {
            let chat = Chat(
                messenger: Chat.discord, channel: thread.parentID, thread: message.channelID, guild: message.guildID, user: message.authorID,
                userName: message.authorName, dm: false, mentioned: mentioned)
            if boundThreads.contains(message.channelID) { return .listen(chat: chat, text: text) }
            guard channels.contains(thread.parentID) else { return .ignore("thread outside the configured channels") }
            if requireMention && !mentioned { return .ignore("no mention") }
            return .listen(chat: chat, text: text)
        }
        if [10, 11, 12].contains(message.channelType ?? -1) { return .ignore("thread with an unknown parent") }
        let shared = sharedRooms.contains(message.channelID, dm: false)
        guard shared || channels.contains(message.channelID) else { return .ignore("channel not configured") }
        if requireMention && !mentioned && !shared { return .ignore("no mention") }
        return .listen(
            chat: Chat(
                messenger: Chat.discord, channel: message.channelID, thread: nil, guild: message.guildID, user: message.authorID,
                userName: message.authorName, dm: false, mentioned: mentioned), text: text)
    }

    /// Whether this machine answers a slash command or a button in `channel` (a thread's id for
    /// a thread): in a DM when it answers DMs; in a server in its own channels, their threads and
    /// what is bound here, or anywhere when it owns every channel.
    func answersInteraction(in channel: String, isDM: Bool) -> Bool {
        if isDM { return answersDMs }
        if ownsEveryChannel || channels.contains(channel) || boundThreads.contains(channel) || sharedRooms.contains(channel, dm: false) {
            return true
        }
        return threads[channel].map { channels.contains($0.parentID) } ?? false
    }

    static func withoutMention(_ content: String, bot: String) -> String {
        content.replacing("<@\(bot)>", with: "")
            .replacing("<@!\(bot)>", with: "")
            .trimmed()
    }
}
