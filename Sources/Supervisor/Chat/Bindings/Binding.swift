import FoundationEssentials
import PiRelaySDK

/// A chat watching a session: its runs, questions and notices go there, and its messages become
/// that session's prompts.
package struct Binding: Codable, Sendable, Equatable {
    package var key: String
    package var messenger: String
    package var channel: String
    package var thread: String?
    package var sessionID: String
    /// Who bound it (for DMs, the user whose chat it is).
    package var user: String?
    package var since: Date
    /// The other sessions this chat watches besides `sessionID`, the active one (`/use` adds
    /// them, `/end` and `/forget` take them away); nil when it watches one.
    package var also: [String]?
    /// The names this chat gave its sessions with `/alias`, by session id.
    package var aliases: [String: String]?

    /// The keys in bindings.json, as they have always been spelled.
    private enum CodingKeys: String, CodingKey {
        case key, messenger, channel, thread, sessionID = "sessionId", user, since, also, aliases
    }

    /// `user`'s direct message with the bot on `messenger`.
    package func isDirectMessage(of user: String, on messenger: String) -> Bool {
        self.messenger == messenger && self.user == user
    }

    /// The sessions this chat watches, the active one first.
    package var watched: [String] { [sessionID] + (also ?? []) }

    package var target: Target { Target(channel: channel, thread: thread) }

    /// The binding as a welcome lists it.
    package var summary: BindingSummary { BindingSummary(messenger: messenger, channel: channel, thread: thread, sessionID: sessionID) }
}
