extension TelegramHTMLChecker {
    /// The first rule of Telegram's HTML a message breaks.
    struct Violation: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
