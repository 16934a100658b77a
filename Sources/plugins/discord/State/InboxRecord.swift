/// The inbox's journal. `seen`: ids of the last user messages taken in, so a message Discord
/// replays after a resume does not become a second prompt. `pending`: messages taken in whose
/// hand-over to the supervisor has not finished; a restarted plugin hands them over again, so a
/// crash between Discord and pi-relayd loses nothing.
struct InboxRecord: Codable, Sendable, Equatable {
    static let file = "inbox.json"
    static let keepSeen = 256

    private(set) var seen: [String] = []
    private(set) var pending: [PendingMessage] = []

    /// False when the message was taken in before.
    mutating func take(_ message: PendingMessage) -> Bool {
        guard !seen.contains(message.id) else { return false }
        seen.append(message.id)
        if seen.count > Self.keepSeen { seen.removeFirst(seen.count - Self.keepSeen) }
        pending.append(message)
        return true
    }

    mutating func done(_ id: String) {
        pending.removeAll { $0.id == id }
    }
}
