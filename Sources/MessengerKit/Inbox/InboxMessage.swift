/// A user message a messenger took in and journals until the supervisor has it: whatever the
/// messenger needs to hand it over again after a restart (its files, its platform ids).
public protocol InboxMessage: Codable, Sendable, Equatable {
    /// Unique per messenger, and the supervisor's `messageId`, by which it acts on a message once.
    var id: String { get }
    /// The conversation it belongs to: one lane's messages reach the supervisor in order.
    var lane: String { get }
    /// How many ids the journal remembers: enough to cover the platform's redelivery window.
    static var remembered: Int { get }
    /// The journal's JSON key for the remembered ids (kept as released plugins wrote it).
    static var seenKey: String { get }
    /// What the user sent as one and the platform split into several messages (a Telegram
    /// album): the messages of one group reach the supervisor as one. nil: a message alone.
    var group: String? { get }
    /// This message, the group's first, with the text and files of its `later` parts.
    func joined(with later: [Self]) -> Self
}

extension InboxMessage {
    public static var seenKey: String { "seen" }
    public var group: String? { nil }
    public func joined(with later: [Self]) -> Self { self }
}
