import PiRelaySDK

/// Where each open question was posted, so `chat.question.closed` can edit it (its buttons go with
/// the edit). Saved: a question can outlive a plugin restart.
actor QuestionMessages {
    struct Posted: Codable, Sendable {
        var chatID: String
        var topicID: Int?
        var messageID: Int
        var title: String
    }

    static let file = "questions.json"
    private var posted: [String: [Posted]]
    private let store: StateStore

    init(store: StateStore) {
        self.store = store
        posted = store.load([String: [Posted]].self, from: Self.file) ?? [:]
    }

    var count: Int { posted.count }

    static func key(session: String, question: String) -> String { session + "/" + question }

    func add(_ key: String, _ message: Posted) async {
        posted[key, default: []].append(message)
        await store.save(posted, to: Self.file)
    }

    func remove(_ key: String) async -> [Posted] {
        let removed = posted.removeValue(forKey: key) ?? []
        if !removed.isEmpty { await store.save(posted, to: Self.file) }
        return removed
    }
}
