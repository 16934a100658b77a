import MessengerKit
import PiRelaySDK

/// Where each open question was posted, so `chat.question.closed` can edit it (its buttons go with
/// the edit). Saved: a question can outlive a plugin restart, and so can a closing not yet shown.
/// A closing is noted here (`close`) and shown beside the delivery lane (`QuestionClosings`), after
/// the chat's questions and finals: in a chat that takes about one write a second, the next
/// question does not wait for the last one's card to change.
actor QuestionMessages: QuestionClosings {
    struct Posted: Codable, Sendable {
        var chatID: String
        var topicID: Int?
        var messageID: Int
        var title: String
        /// What the card is to say once the supervisor closed its question.
        var closing: String?
    }

    static let file = "questions.json"
    private var posted: [String: [Posted]]
    /// Questions this process closed: a closing retried after its card was shown and forgotten
    /// (the save that failed first) is still known, and posts no message of its own.
    private var closed: Set<String> = []
    private let store: StateStore
    nonisolated let closingsNoted: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(store: StateStore) {
        self.store = store
        let saved = store.load([String: [Posted]].self, from: Self.file) ?? [:]
        posted = saved
        (closingsNoted, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Closings a previous run noted and did not show.
        if saved.values.joined().contains(where: { $0.closing != nil }) { wake.yield() }
    }

    /// Questions still open.
    var count: Int { posted.values.filter { $0.contains { $0.closing == nil } }.count }

    static func key(session: String, question: String) -> String { session + "/" + question }

    func add(_ key: String, _ message: Posted) async {
        posted[key, default: []].append(message)
        await store.save(posted, to: Self.file)
    }

    /// The question is closed, and its cards are to say `text`: false when none of them is known
    /// here (it was never posted in Telegram). A closing repeated (the delivery replayed after a
    /// crash) finds the first one noted, and changes nothing. Throws while the closing cannot be
    /// saved: the delivery stays unacknowledged, or a crash before the edit would leave the
    /// card's buttons live for good.
    func close(_ key: String, text: String) async throws -> Bool {
        guard var cards = posted[key] else { return closed.contains(key) }
        closed.insert(key)
        if cards.contains(where: { $0.closing == nil }) {
            for index in cards.indices where cards[index].closing == nil { cards[index].closing = text }
            posted[key] = cards
            wake.yield()
        }
        guard await store.save(posted, to: Self.file) else { throw StateStore.NotSaved(file: Self.file) }
        return true
    }

    var nextClosing: (card: Posted, text: String)? {
        for cards in posted.values {
            if let card = cards.first(where: { $0.closing != nil }) { return (card, card.closing ?? "") }
        }
        return nil
    }

    func closingShown(_ card: Posted) async {
        for (key, cards) in posted {
            let left = cards.filter { $0.chatID != card.chatID || $0.messageID != card.messageID }
            guard left.count != cards.count else { continue }
            posted[key] = left.isEmpty ? nil : left
        }
        await store.save(posted, to: Self.file)
    }
}
