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

    package init?(_ d: JSONValue) {
        guard let id = d["id"]?.stringValue, let channel = d["channel_id"]?.stringValue,
            let author = d["author"], let authorID = author["id"]?.stringValue
        else { return nil }
        self.id = id
        channelID = channel
        guildID = d["guild_id"]?.stringValue
        self.authorID = authorID
        authorName = author["global_name"]?.stringValue ?? author["username"]?.stringValue ?? authorID
        authorIsBot = author["bot"]?.boolValue ?? false
        webhookID = d["webhook_id"]?.stringValue
        content = d["content"]?.stringValue ?? ""
        mentionIDs = (d["mentions"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        attachments = (d["attachments"]?.arrayValue ?? []).compactMap { a in
            guard let url = a["url"]?.stringValue, let name = a["filename"]?.stringValue else { return nil }
            return Attachment(url: url, filename: name, size: a["size"]?.intValue, contentType: a["content_type"]?.stringValue)
        }
        type = d["type"]?.intValue ?? 0
        channelType = d["channel_type"]?.intValue
    }
}
