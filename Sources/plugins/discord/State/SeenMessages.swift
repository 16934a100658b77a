/// Ids of the last user messages handed to the supervisor. After a resume Discord may replay a
/// message the plugin already relayed (it saves its sequence number just after handling); this
/// keeps such a message from becoming a second prompt.
struct SeenMessages: Codable, Sendable, Equatable {
    static let file = "seen.json"
    static let keep = 256

    private(set) var ids: [String] = []

    /// False when `id` was seen before.
    mutating func insert(_ id: String) -> Bool {
        guard !ids.contains(id) else { return false }
        ids.append(id)
        if ids.count > Self.keep { ids.removeFirst(ids.count - Self.keep) }
        return true
    }
}
