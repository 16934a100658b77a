/// How a write waits for its chat's budget in the send queue: its urgency, the message it edits
/// (a newer edit of it replaces this one while both wait), and whether its place was already
/// taken (`LiveWriter.liveTurn`).
public struct SendPace: Sendable, Equatable {
    public var priority: SendPriority
    public var replaces: String?
    public var prepaid: Bool

    public init(priority: SendPriority = .notice, replaces: String? = nil, prepaid: Bool = false) {
        self.priority = priority
        self.replaces = replaces
        self.prepaid = prepaid
    }

    public static let notice = SendPace()
    public static let answer = SendPace(priority: .answer)
    public static let live = SendPace(priority: .live)

    /// The same write, its place already taken by `LiveWriter.liveTurn` just before.
    public var taken: SendPace {
        var copy = self
        copy.prepaid = true
        return copy
    }

    /// The same write made again (plain text after unparsable HTML, a new chat id): it waits
    /// for a place of its own.
    public var again: SendPace {
        var copy = self
        copy.prepaid = false
        return copy
    }

    /// The same write as an edit of `message`, which a newer edit of it replaces while both wait.
    public func replacing(_ message: String) -> SendPace {
        var copy = self
        copy.replaces = message
        return copy
    }
}
