import PiRelaySDK

/// What ListenPolicy decided about an event.
enum ListenDecision: Sendable, Equatable {
    case ignore(String)
    /// For the relay: the chat as the supervisor sees it and the text without the bot's mention.
    case listen(chat: Chat, text: String)
}
