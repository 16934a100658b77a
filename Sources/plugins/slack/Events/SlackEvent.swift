import PiRelaySDK

/// The parts of a `message` or `app_mention` event the relay reads (spec section 4).
struct SlackEvent: Sendable, Equatable {
    struct File: Sendable, Equatable, Codable {
        var id: String
        var name: String
        var size: Int?
        var mimetype: String?
        var url: String
        /// An audio clip (`subtype: slack_audio`); nil in what older versions saved.
        var voice: Bool?
        /// Its `duration_ms`, in whole seconds.
        var seconds: Int?
    }

    /// `message` or `app_mention`.
    var type: String
    var channel: String
    /// `im`, `channel`, `group` or `mpim`; app_mention has none (never a DM).
    var channelType: String
    var user: String
    var text: String
    var ts: String
    var threadTS: String?
    var subtype: String?
    var botID: String?
    var hidden: Bool
    var files: [File]

    init?(json: JSONValue) {
        guard let type = json["type"]?.stringValue, type == "message" || type == "app_mention",
            let channel = json["channel"]?.stringValue, let ts = json["ts"]?.stringValue
        else { return nil }
        self.type = type
        self.channel = channel
        channelType = json["channel_type"]?.stringValue ?? (channel.hasPrefix("D") ? "im" : "channel")
        user = json["user"]?.stringValue ?? ""
        text = json["text"]?.stringValue ?? ""
        self.ts = ts
        threadTS = json["thread_ts"]?.stringValue
        subtype = json["subtype"]?.stringValue
        botID = json["bot_id"]?.stringValue
        hidden = json["hidden"]?.boolValue ?? false
        files = (json["files"]?.arrayValue ?? []).compactMap { file in
            guard let id = file["id"]?.stringValue, let url = file["url_private_download"]?.stringValue ?? file["url_private"]?.stringValue
            else { return nil }
            // An audio clip is `subtype: slack_audio`, its mimetype often video/* or empty
            // (slack-audio-clips.md §1): it is audio whatever the mimetype says.
            let clip = file["subtype"]?.stringValue == "slack_audio" || file["media_display_type"]?.stringValue == "audio"
            let seconds = file["duration_ms"]?.intValue.map { ($0 + 999) / 1000 }
            return File(
                id: id, name: file["name"]?.stringValue ?? id, size: file["size"]?.intValue,
                mimetype: clip ? "audio/" + ((file["filetype"]?.stringValue == "webm") ? "webm" : "mp4") : file["mimetype"]?.stringValue,
                url: url, voice: clip ? true : nil, seconds: clip ? seconds : nil)
        }
    }

    var isDM: Bool { channelType == "im" }
    /// The message's key within Slack: a channel mention arrives as two events with two event
    /// ids (app_mention and message), and this is what they share.
    var key: String { channel + ":" + ts }
}
