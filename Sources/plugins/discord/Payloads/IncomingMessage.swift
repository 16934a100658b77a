import PiRelaySDK

/// A MESSAGE_CREATE, reduced to what the relay uses.
package struct IncomingMessage: Sendable, Equatable {
    package struct Attachment: Codable, Sendable, Equatable {
        package var url: String
        package var filename: String
        package var size: Int?
        package var contentType: String?
        /// A voice message (the message's IS_VOICE_MESSAGE flag); nil in what older versions saved.
        package var voice: Bool?
        /// Its `duration_secs`, whole seconds.
        package var seconds: Int?

        package init(url: String, filename: String, size: Int?, contentType: String?, voice: Bool? = nil, seconds: Int? = nil) {
            self.url = url
            self.filename = filename
            self.size = size
            self.contentType = contentType
            self.voice = voice
            self.seconds = seconds
        }
    }

    package var id: String
    package var channelID: String
    package var guildID: String?
    package var authorID: String
    package var authorName: String
    package var authorIsBot: Bool
    package var webhookID: String?
    package var content: String
    package var mentionIDs: [String]
    package var attachments: [Attachment]
    /// 0 default, 19 reply; system messages (thread created, pins...) have other types.
    package var type: Int
    package var channelType: Int?

    package var isDM: Bool { guildID == nil }

    package init?(_ payload: JSONValue) {
        guard let id = payload["id"]?.stringValue, let channel = payload["channel_id"]?.stringValue,
            let author = payload["author"], let authorID = author["id"]?.stringValue
        else { return nil }
        self.id = id
        channelID = channel
        guildID = payload["guild_id"]?.stringValue
        self.authorID = authorID
        authorName = author["global_name"]?.stringValue ?? author["username"]?.stringValue ?? authorID
        authorIsBot = author["bot"]?.boolValue ?? false
        webhookID = payload["webhook_id"]?.stringValue
        content = payload["content"]?.stringValue ?? ""
        mentionIDs = (payload["mentions"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        // A voice message: flag IS_VOICE_MESSAGE (1 << 13) on the message, its one attachment an
        // audio/ogg with duration_secs and waveform (discord-api.md §3, the Attachment object; §4, message flags).
        let voiceMessage = (payload["flags"]?.intValue ?? 0) & (1 << 13) != 0
        attachments = (payload["attachments"]?.arrayValue ?? []).compactMap { attachment in
            guard let url = attachment["url"]?.stringValue, let name = attachment["filename"]?.stringValue else { return nil }
            let seconds = attachment["duration_secs"]?.doubleValue.map { Int($0.rounded(.up)) }
            return Attachment(
                url: url, filename: name, size: attachment["size"]?.intValue, contentType: attachment["content_type"]?.stringValue,
                voice: voiceMessage ? true : nil, seconds: seconds)
        }
        type = payload["type"]?.intValue ?? 0
        channelType = payload["channel_type"]?.intValue
    }
}
