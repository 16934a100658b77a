import PiRelaySDK

/// Each session's page is a chat of its own: channel `s:SESSION`, a direct conversation with the
/// signed-in web user.
enum WebPlace {
    static func channel(_ session: String) -> String { "s:" + session }

    /// The session a target's channel is the page of; nil for any other channel.
    static func session(_ target: Target) -> String? {
        target.channel.hasPrefix("s:") ? String(target.channel.dropFirst(2)) : nil
    }

    static func chat(session: String, user: String) -> Chat {
        Chat(messenger: "web", channel: channel(session), user: user, userName: user, dm: true, mentioned: true)
    }
}
