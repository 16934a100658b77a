import PiRelaySDK

/// Whether a message is for the relay, and as what.
enum ListenDecision: Sendable, Equatable {
    case ignore(String)
    /// `text` is the message without the bot's mention.
    case listen(chat: Chat, text: String)
}
