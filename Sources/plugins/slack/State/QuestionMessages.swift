import PiRelaySDK

/// Where each open question was posted and what its controls stand for, so a click maps back to
/// its answer and `chat.question.closed` can edit the message. Saved: a question can outlive a
/// plugin restart.
actor QuestionMessages {
    struct Posted: Codable, Sendable, Equatable {
        var channel: String
        var thread: String?
        var ts: String
        var sessionID: String
        var questionID: String
        var title: String
        var options: [String]
        /// Who answered by a click, for the closing edit.
        var answeredBy: String?
    }

    static let file = "questions.json"
    private var posted: [Posted]
    private let store: StateStore

    init(store: StateStore) {
        self.store = store
        posted = store.load([Posted].self, from: Self.file) ?? []
    }

    var count: Int { posted.count }

    func add(_ message: Posted) async {
        posted.append(message)
        if posted.count > 500 { posted.removeFirst(posted.count - 500) }
        await store.save(posted, to: Self.file)
    }

    /// The question posted as message `ts` in `channel`.
    func find(channel: String, ts: String) -> Posted? { posted.first { $0.channel == channel && $0.ts == ts } }

    func answered(channel: String, ts: String, by user: String) async {
        guard let index = posted.firstIndex(where: { $0.channel == channel && $0.ts == ts }) else { return }
        posted[index].answeredBy = user
        await store.save(posted, to: Self.file)
    }

    /// Forgets the question's messages and returns them.
    func remove(session: String, question: String) async -> [Posted] {
        let removed = posted.filter { $0.sessionID == session && $0.questionID == question }
        guard !removed.isEmpty else { return [] }
        posted.removeAll { $0.sessionID == session && $0.questionID == question }
        await store.save(posted, to: Self.file)
        return removed
    }
}
