import FoundationEssentials
import PiRelaySDK

/// Open questions by key (see `QuestionChoice`), saved so buttons keep working and the message
/// can be closed after a restart.
actor Questions {
    static let file = "questions.json"

    private let store: StateStore
    private var records: [String: QuestionRecord]

    init(store: StateStore) {
        self.store = store
        let now = Date().timeIntervalSince1970
        records = (store.load([String: QuestionRecord].self, from: Self.file) ?? [:]).filter { now - $0.value.postedAt < 86_400 }
    }

    func record(_ key: String) -> QuestionRecord? { records[key] }

    /// Notes the question's card. Throws while the record cannot be saved: the delivery stays
    /// unacknowledged (retried, replayed at the next start), or a restarted plugin would answer
    /// its buttons "no longer open" while the agent waits.
    func save(_ record: QuestionRecord, key: String) async throws {
        records[key] = record
        guard await store.save(records, to: Self.file) else { throw StateStore.NotSaved(file: Self.file) }
    }

    func remove(_ key: String) async {
        guard records.removeValue(forKey: key) != nil else { return }
        await store.save(records, to: Self.file)
    }

    var count: Int { records.count }
}
