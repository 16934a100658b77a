/// The inbox's journal, saved before an envelope is acknowledged. `events`: event ids taken in
/// (a retry of one is skipped); `messages`: `channel:ts` keys (a channel mention comes as two
/// events with two ids); `pending`: messages taken in whose hand-over has not finished. Kept
/// well past Slack's retry window (the last retry comes about 5 minutes after the first try).
struct InboxRecord: Codable, Sendable, Equatable {
    static let file = "inbox.json"
    static let keep = 2000

    private(set) var events: [String] = []
    private(set) var messages: [String] = []
    private(set) var pending: [PendingMessage] = []

    /// False when the event was taken in before.
    mutating func see(event id: String) -> Bool {
        guard !events.contains(id) else { return false }
        events.append(id)
        if events.count > Self.keep { events.removeFirst(events.count - Self.keep) }
        return true
    }

    /// False when the message was taken in before (through another event, or as a command).
    mutating func take(_ message: PendingMessage) -> Bool {
        guard !messages.contains(message.id) else { return false }
        messages.append(message.id)
        if messages.count > Self.keep { messages.removeFirst(messages.count - Self.keep) }
        pending.append(message)
        return true
    }

    mutating func done(_ id: String) {
        pending.removeAll { $0.id == id }
    }
}
