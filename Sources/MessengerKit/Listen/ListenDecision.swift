import PiRelaySDK

/// What a messenger's listen policy decided about a message: not for the relay (and why, for
/// the log), or for it, as the supervisor sees the chat.
public enum ListenDecision: Sendable, Equatable {
    case ignore(String)
    /// `text` is the message without the bot's mention (or Telegram's `@username` suffix).
    case listen(chat: Chat, text: String)
}
