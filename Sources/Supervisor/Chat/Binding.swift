import Foundation
import PiRelaySDK

/// A chat watching a session: its runs, questions and notices go there, and its messages become
/// that session's prompts.
struct Binding: Codable, Sendable, Equatable {
    var key: String
    var messenger: String
    var channel: String
    var thread: String?
    var sessionID: String
    /// Who bound it (for DMs, the user whose chat it is).
    var user: String?
    var since: Date

    /// The keys in bindings.json, as they have always been spelled.
    private enum CodingKeys: String, CodingKey {
        case key, messenger, channel, thread, sessionID = "sessionId", user, since
    }

    var target: JSONValue {
        var t: JSONValue = ["channel": .string(channel)]
        if let thread { t["thread"] = .string(thread) }
        return t
    }

    var json: JSONValue {
        var o: JSONValue = ["chat": ["messenger": .string(messenger), "channel": .string(channel)], "sessionId": .string(sessionID)]
        if let thread { o["chat"]?["thread"] = .string(thread) }
        return o
    }
}
