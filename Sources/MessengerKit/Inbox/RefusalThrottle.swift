import FoundationEssentials

/// How often a chat hears "Not authorized." (or a pairing claim's answer) from the bot: once per
/// `interval` per user and chat, so nobody off the allowlist can make the bot spam a group.
/// Pure: callers pass the time, tests a fake one.
public struct RefusalThrottle: Sendable {
    public let interval: Double
    private var lastAnswer: [String: Double] = [:]

    public init(interval: Double = 600) {
        self.interval = interval
    }

    /// True when `user` in `chat` may be answered now; the answer is then counted. `always`: an
    /// answer the platform needs (a refused slash command shows as failed without one) is allowed
    /// and starts the interval again.
    public mutating func allows(_ user: String, in chat: String, now: Double, always: Bool = false) -> Bool {
        let key = user + "/" + chat
        if !always, let last = lastAnswer[key], now - last < interval { return false }
        lastAnswer[key] = now
        if lastAnswer.count > 4096 { lastAnswer = lastAnswer.filter { now - $0.value < interval } }
        return true
    }

    /// `allows` at the wall clock's time.
    public mutating func allows(_ user: String, in chat: String, always: Bool = false) -> Bool {
        allows(user, in: chat, now: Date().timeIntervalSince1970, always: always)
    }
}
