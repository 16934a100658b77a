import FoundationEssentials
import PiRelaySDK

/// `callback_data` holds at most 64 bytes, and our action ids run to 100 characters: each button
/// gets a short token (`b` and a number) standing for what it does. Saved, so buttons still work
/// after a restart; the oldest are forgotten past `keep`.
actor ButtonTokens {
    struct Record: Codable {
        var next = 1
        var actions: [String: ButtonAction] = [:]
        var order: [String] = []
    }

    static let file = "buttons.json"
    static let keep = 3000
    private var record: Record
    private let store: StateStore

    init(store: StateStore) {
        self.store = store
        record = store.load(Record.self, from: Self.file) ?? Record()
    }

    /// The `callback_data` for a button that does `action`.
    func token(for action: ButtonAction) -> String {
        let token = "b" + String(record.next, radix: 36)
        record.next += 1
        record.actions[token] = action
        record.order.append(token)
        if record.order.count > Self.keep {
            for old in record.order.prefix(record.order.count - Self.keep) { record.actions[old] = nil }
            record.order.removeFirst(record.order.count - Self.keep)
        }
        return token
    }

    func action(_ token: String) -> ButtonAction? { record.actions[token] }

    /// Written once a message's buttons are all made, not once per button.
    func save() async { await store.save(record, to: Self.file) }
}
