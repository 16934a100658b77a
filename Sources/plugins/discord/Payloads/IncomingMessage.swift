import PiRelaySDK

/// A MESSAGE_CREATE, reduced to what the relay uses.
package struct IncomingMessage: Sendable, Equatable {
    package struct Attachment: Codable, Sendable, Equatable {
        package var url: String
        package var filename: String
        package var size: Int?
        package var contentType: String?

        package init(url: String, filename: String, size: Int?, contentType: String?) {
            self.url = url
            self.filename = filename
            self.size = size
            self.contentType = contentType
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
        attachments = (payload["attachments"]?.arrayValue ?? []).compactMap { attachment in
            guard let url = attachment["url"]?.stringValue, let name = attachment["filename"]?.stringValue else { return nil }
            return Attachment(url: url, filename: name, size: attachment["size"]?.intValue, contentType: attachment["content_type"]?.stringValue)
        }
        type = payload["type"]?.intValue ?? 0
        channelType = payload["channel_type"]?.intValue
    }
}
