import PiRelaySDK

/// A messenger's inbound journal (`inbox.json`), saved before the platform is told a message
/// arrived. `seen`: ids of the last messages taken in, so one the platform delivers again (after a
/// resume, a retry, or as a second event for the same message) does not become a second prompt.
/// `pending`: messages taken in whose hand-over to the supervisor has not finished; a restarted
/// plugin hands them over again, so a crash between the platform and pi-relayd loses nothing.
///
/// Two transport marks, each kept only by a messenger that uses one: `cursor`, the highest update
/// a polling transport took in (Telegram's `update_id`; the next poll confirms up to it), and
/// `events`, the ids of pushed events already taken in (Slack's `event_id`; a retry is skipped).
public struct InboxRecord<Message: InboxMessage>: Sendable, Equatable {
    public static var file: String { "inbox.json" }

    /// The highest update taken in, for a transport that confirms by position; nil otherwise.
    public var cursor: Int?
    /// Ids of the transport's events taken in, for a transport that redelivers by id; nil otherwise.
    public internal(set) var events: [String]?
    public internal(set) var seen: [String] = []
    public internal(set) var pending: [Message] = []
    /// The supervisor's answers (`chat.message` results, as JSON) to pending messages whose reply
    /// is not yet shown: a restarted plugin shows them rather than asking again, when pi-relayd
    /// would answer the repeat `ignored`.
    public internal(set) var answers: [String: JSONValue] = [:]
    /// The parts joined to each group's first part (`InboxMessage.group`), by its id, written
    /// before the group's hand-over: after a restart the same parts go again under that id,
    /// which pi-relayd may know already, and a part that came later goes on its own.
    public internal(set) var joined: [String: [String]] = [:]

    /// An empty journal; pass `cursor: 0` or `events: []` for a transport that keeps that mark.
    public init(cursor: Int? = nil, events: [String]? = nil) {
        self.cursor = cursor
        self.events = events
    }

    /// False when the message was taken in before.
    public mutating func take(_ message: Message) -> Bool {
        guard !seen.contains(message.id) else { return false }
        seen.append(message.id)
        Self.bound(&seen)
        pending.append(message)
        return true
    }

    /// False when the event was taken in before. Starts keeping events if this journal did not.
    public mutating func see(event id: String) -> Bool {
        var events = self.events ?? []
        guard !events.contains(id) else { return false }
        events.append(id)
        Self.bound(&events)
        self.events = events
        return true
    }

    /// The supervisor answered pending message `id`: kept until the answer is shown (`done`).
    public mutating func answer(_ id: String, _ result: ChatMessageResult) {
        guard pending.contains(where: { $0.id == id }) else { return }
        answers[id] = result.json
    }

    /// The answer kept for pending message `id`, if the supervisor gave one.
    public func answer(of id: String) -> ChatMessageResult? {
        answers[id].flatMap { try? ChatMessageResult(json: $0) }
    }

    /// The message's hand-over finished: a restart need not repeat it.
    public mutating func done(_ id: String) {
        pending.removeAll { $0.id == id }
        answers[id] = nil
        joined[id] = nil
    }

    private static func bound(_ ids: inout [String]) {
        if ids.count > Message.remembered { ids.removeFirst(ids.count - Message.remembered) }
    }
}
