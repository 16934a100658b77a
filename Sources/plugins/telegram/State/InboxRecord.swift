/// The inbox's journal. `lastUpdate`: the highest `update_id` taken in; the next `getUpdates`
/// confirms up to it, and an update at or below it that Telegram sends again (the plugin died
/// before confirming) is skipped. `pending`: messages taken in whose hand-over has not finished.
/// Saved before the update is confirmed, so no update is lost and none acted on twice.
struct InboxRecord: Codable, Sendable, Equatable {
    static let file = "inbox.json"
    static let keepSeen = 512

    var lastUpdate: Int = 0
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
