import PiRelaySDK

/// A user message or `/pi` command taken in and not yet handed over to the supervisor: what a
/// restarted plugin hands over again.
struct PendingMessage: Codable, Sendable, Equatable {
    /// `<channel>:<ts>` for a message, `cmd:<trigger id>` for a command. Also the supervisor's
    /// `messageId`, by which it acts on a message once.
    var id: String
    var chat: Chat
    var text: String
    var files: [SlackEvent.File]
    /// The message's `ts`, for the status reaction; nil for a command.
    var ts: String?
}
