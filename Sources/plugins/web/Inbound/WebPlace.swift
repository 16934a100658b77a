import PiRelaySDK

/// Each session's page is a chat of its own: channel `s:SESSION`, a direct conversation with the
/// signed-in web user.
enum WebPlace {
    static func channel(_ session: String) -> String { "s:" + session }

    /// The session a target's channel is the page of; nil for any other channel.
    static func session(_ target: Target) -> String? {
        target.channel.hasPrefix("s:") ? String(target.channel.dropFirst(2)) : nil
    }

    /// Whether a session id can name a file or folder of the plugin's state as it is (the ids
    /// pi-relayd makes always can; anything with a slash or a dot never does).
    static func isFileSafe(_ session: String) -> Bool {
        !session.isEmpty && session.count <= 64
            && session.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    static func chat(session: String, user: String) -> Chat {
        Chat(messenger: "web", channel: channel(session), user: user, userName: user, dm: true, mentioned: true)
    }
}
