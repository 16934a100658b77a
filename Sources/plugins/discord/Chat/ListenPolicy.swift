import DiscordPayloads
import Foundation
import PiRelaySDK

/// Decides, without I/O, whether a message is one the relay answers: DMs; configured or bound
/// channels; threads the supervisor bound or the plugin created; threads under a configured
/// channel. In guild channels (not bound threads) a mention may be required. The bot's own
/// messages, other bots', webhooks' and system messages are never relayed.
struct ListenPolicy: Sendable {
    var botUserID: String
    var channels: Set<String>
    var threads: [String: ThreadInfo]
    var boundThreads: Set<String>
    var requireMention: Bool

    func decide(_ m: IncomingMessage) -> ListenDecision {
        if m.authorID == botUserID { return .ignore("own message") }
        if m.authorIsBot || m.webhookID != nil { return .ignore("from a bot or webhook") }
        guard m.type == 0 || m.type == 19 else { return .ignore("system message (type \(m.type))") }
        let mentioned = m.mentionIDs.contains(botUserID) || m.content.contains("<@\(botUserID)>") || m.content.contains("<@!\(botUserID)>")
        let text = Self.withoutMention(m.content, bot: botUserID)
        if text.isEmpty && m.attachments.isEmpty { return .ignore("empty message") }
        if m.isDM {
            return .listen(
                chat: Chat(
                    messenger: Chat.discord, channel: m.channelID, thread: nil, guild: nil, user: m.authorID, userName: m.authorName,
                    dm: true, mentioned: mentioned), text: text)
        }
        if let thread = threads[m.channelID] {
            let chat = Chat(
                messenger: Chat.discord, channel: thread.parentID, thread: m.channelID, guild: m.guildID, user: m.authorID,
                userName: m.authorName, dm: false, mentioned: mentioned)
            if boundThreads.contains(m.channelID) { return .listen(chat: chat, text: text) }
            guard channels.contains(thread.parentID) else { return .ignore("thread outside the configured channels") }
            if requireMention && !mentioned { return .ignore("no mention") }
            return .listen(chat: chat, text: text)
        }
        if [10, 11, 12].contains(m.channelType ?? -1) { return .ignore("thread with an unknown parent") }
        guard channels.contains(m.channelID) else { return .ignore("channel not configured") }
        if requireMention && !mentioned { return .ignore("no mention") }
        return .listen(
            chat: Chat(
                messenger: Chat.discord, channel: m.channelID, thread: nil, guild: m.guildID, user: m.authorID,
                userName: m.authorName, dm: false, mentioned: mentioned), text: text)
    }

    static func withoutMention(_ content: String, bot: String) -> String {
        content.replacingOccurrences(of: "<@\(bot)>", with: "")
            .replacingOccurrences(of: "<@!\(bot)>", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
