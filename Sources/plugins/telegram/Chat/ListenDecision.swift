import PiRelaySDK

/// What ListenPolicy decided about a message.
enum ListenDecision: Sendable, Equatable {
    case ignore(String)
    /// For the relay: the chat as the supervisor sees it and the text without the bot's mention
    /// or `@username` suffix.
    case listen(chat: Chat, text: String)
}
