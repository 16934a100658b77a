import Logging

/// Chats Telegram refuses to let the bot write to (403: the user blocked the bot, it was removed
/// from the group, or the user never started it). Logged once; what the supervisor sends there
/// is dropped until the chat writes to the bot again. `status` lists them with the reason.
actor BlockedChats {
    private var reasons: [String: String] = [:]
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func isBlocked(_ chat: String) -> Bool { reasons[chat] != nil }

    func block(_ chat: String, reason: String) {
        guard reasons[chat] == nil else { return }
        reasons[chat] = reason
        logger.warning("chat \(chat): Telegram refuses our messages (\(reason)); dropping what is sent there until it writes again")
    }

    /// The chat wrote to the bot: it can be written to again.
    func heard(_ chat: String) {
        if reasons.removeValue(forKey: chat) != nil { logger.info("chat \(chat) wrote again; posting there again") }
    }

    var summary: [String: String] { reasons }
}
