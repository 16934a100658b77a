import PiRelaySDK

/// The parts of a Bot API `Message` the relay reads (spec section 5).
struct TelegramMessage: Sendable, Equatable {
    struct File: Sendable, Equatable, Codable {
        var fileID: String
        var filename: String
        var size: Int?
        var contentType: String?
        /// A voice note (`Message.voice`): nil in what older versions saved.
        var voice: Bool?
        /// Its `duration` in seconds.
        var seconds: Int?
        /// The message it came with: an album's files share one prompt, and may share a name.
        var messageID: Int?
    }

    /// The Bot API's `Chat`, as far as the relay reads it.
    struct Conversation: Sendable, Equatable {
        var id: String
        /// `private`, `group`, `supergroup` or `channel`.
        var type: String
        var title: String?
        var isForum: Bool
    }

    /// The Bot API's `User` who wrote it: empty for a channel post or an anonymous admin.
    struct Sender: Sendable, Equatable {
        var id: String
        /// The username, else the first name, else the id.
        var name: String
        var isBot: Bool
    }

    var messageID: Int
    var chat: Conversation
    /// The topic, for a message in one (not the General topic).
    var topicID: Int?
    var from: Sender
    /// The text, or a photo's or document's caption.
    var text: String
    /// Whether the text starts with a bot command (a `bot_command` entity at offset 0).
    var startsWithCommand: Bool
    var mentions: [String]
    /// Who wrote the message this one replies to.
    var replyToFromID: String?
    var files: [File]
    /// An album's id (`media_group_id`): its photos and files come as several messages carrying it.
    var albumID: String?
    /// Service messages of a group's upgrade to a supergroup: in the old group, the new id; in
    /// the new supergroup, the old one.
    var migrateTo: String?
    var migrateFrom: String?

    init?(json: JSONValue) {
        guard let id = json["message_id"]?.intValue, let chat = json["chat"], let chatID = Self.id(chat["id"]) else { return nil }
        messageID = id
        self.chat = Conversation(
            id: chatID, type: chat["type"]?.stringValue ?? "private", title: chat["title"]?.stringValue,
            isForum: chat["is_forum"]?.boolValue ?? false)
        topicID = json["is_topic_message"]?.boolValue == true ? json["message_thread_id"]?.intValue : nil
        let from = json["from"]
        let fromID = Self.id(from?["id"]) ?? ""
        self.from = Sender(
            id: fromID, name: from?["username"]?.stringValue ?? from?["first_name"]?.stringValue ?? fromID,
            isBot: from?["is_bot"]?.boolValue ?? false)
        let text = json["text"]?.stringValue ?? json["caption"]?.stringValue ?? ""
        self.text = text
        let entities = (json["entities"] ?? json["caption_entities"])?.arrayValue ?? []
        startsWithCommand = entities.contains { $0["type"] == "bot_command" && $0["offset"]?.intValue == 0 }
        mentions = entities.filter { $0["type"] == "mention" }.compactMap { entity in
            guard let offset = entity["offset"]?.intValue, let length = entity["length"]?.intValue else { return nil }
            return Self.slice(text, utf16Offset: offset, length: length)
        }
        replyToFromID = Self.id(json["reply_to_message"]?["from"]?["id"])
        var files: [File] = []
        if let sizes = json["photo"]?.arrayValue, let largest = sizes.last, let fileID = largest["file_id"]?.stringValue {
            files.append(File(fileID: fileID, filename: "photo-\(id).jpg", size: largest["file_size"]?.intValue, contentType: "image/jpeg"))
        }
        // An animation comes with the same file as a document too, for older clients (spec: Message.animation).
        if json["animation"] == nil, let document = json["document"], let fileID = document["file_id"]?.stringValue {
            files.append(
                File(
                    fileID: fileID, filename: document["file_name"]?.stringValue ?? "document-\(id)", size: document["file_size"]?.intValue,
                    contentType: document["mime_type"]?.stringValue))
        }
        // A voice note (spec section 5, Voice: file_id, duration, mime_type): its words become the prompt.
        if let voice = json["voice"], let fileID = voice["file_id"]?.stringValue {
            files.append(
                File(
                    fileID: fileID, filename: "voice-\(id).ogg", size: voice["file_size"]?.intValue,
                    contentType: voice["mime_type"]?.stringValue ?? "audio/ogg", voice: true, seconds: voice["duration"]?.intValue))
        }
        // Audio, a video, a round video note, a GIF-like animation (spec section 5: each its own
        // field): files as a document is, so the caption is not all that arrives. A video note
        // has no name or type of its own.
        for (field, ext, type) in [("audio", "mp3", "audio/mpeg"), ("video", "mp4", "video/mp4"), ("animation", "mp4", "video/mp4")] {
            guard let media = json[field], let fileID = media["file_id"]?.stringValue else { continue }
            files.append(
                File(
                    fileID: fileID, filename: media["file_name"]?.stringValue ?? "\(field)-\(id).\(ext)", size: media["file_size"]?.intValue,
                    contentType: media["mime_type"]?.stringValue ?? type))
        }
        if let note = json["video_note"], let fileID = note["file_id"]?.stringValue {
            files.append(File(fileID: fileID, filename: "video-note-\(id).mp4", size: note["file_size"]?.intValue, contentType: "video/mp4"))
        }
        self.files = files.map { file in
            var file = file
            file.messageID = id
            return file
        }
        albumID = json["media_group_id"]?.stringValue
        migrateTo = Self.id(json["migrate_to_chat_id"])
        migrateFrom = Self.id(json["migrate_from_chat_id"])
    }

    var isPrivate: Bool { chat.type == "private" }
    var place: Place { Place(chatID: chat.id, topicID: topicID) }
    /// The album this message is part of, named uniquely across chats; nil for a message alone.
    var album: String? { albumID.map { "\(chat.id):\($0)" } }

    /// Ids come as JSON numbers (up to 52 bits); kept as their decimal text.
    static func id(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        if let text = value.stringValue { return text }
        return value.intValue.map(String.init)
    }

    /// Entity offsets count UTF-16 code units (spec section 5), not characters.
    static func slice(_ text: String, utf16Offset: Int, length: Int) -> String? {
        let units = text.utf16
        guard utf16Offset >= 0, length >= 0, utf16Offset + length <= units.count else { return nil }
        let start = units.index(units.startIndex, offsetBy: utf16Offset)
        let end = units.index(start, offsetBy: length)
        guard let from = start.samePosition(in: text.unicodeScalars), let to = end.samePosition(in: text.unicodeScalars) else { return nil }
        return String(text.unicodeScalars[from..<to])
    }
}
