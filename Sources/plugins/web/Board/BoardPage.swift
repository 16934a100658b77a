import PiRelaySDK

/// What one session's page shows: its posts (newest last, at most `keep`), the live view of
/// each run still going, and the runs whose final arrived (a late live view for them is ignored).
struct BoardPage: Sendable {
    static let keep = 200

    private(set) var items: [JSONValue] = []
    private var itemIDs: Set<String> = []
    private(set) var live: [String: (rev: Int, html: String)] = [:]
    private var finished: Set<String> = []

    init() {}

    /// A page as it was saved: its posts (live views are not kept).
    init(items: [JSONValue]) {
        for item in items.suffix(Self.keep) { _ = add(item, id: item["id"]?.stringValue ?? "") }
    }

    /// False when `id` is there already (a delivery repeated after a crash).
    mutating func add(_ item: JSONValue, id: String) -> Bool {
        guard itemIDs.insert(id).inserted else { return false }
        if let run = item["runId"]?.stringValue, item["kind"]?.stringValue == "final" {
            finished.insert(run)
            live[run] = nil
        }
        items.append(item)
        if items.count > Self.keep {
            let gone = items.removeFirst()
            if let id = gone["id"]?.stringValue { itemIDs.remove(id) }
        }
        return true
    }

    /// False when `rev` is not newer than the run's view, or the run's final came already.
    mutating func live(run: String, rev: Int, html: String) -> Bool {
        guard !finished.contains(run), rev > (live[run]?.rev ?? 0) else { return false }
        live[run] = (rev, html)
        return true
    }

    func finished(_ run: String) -> Bool { finished.contains(run) }

    /// Marks the question's post closed with `text`; false when it is not on the page.
    mutating func close(question: String, text: String) -> Bool {
        guard let index = items.lastIndex(where: { $0["question"]?["id"]?.stringValue == question }) else { return false }
        items[index]["closed"] = .string(text)
        return true
    }

    /// Everything a newly opened page needs, as the messages the board sends.
    func backlog(session: String) -> [JSONValue] {
        var messages: [JSONValue] = items.map { ["type": "item", "session": .string(session), "item": $0] }
        for (run, view) in live.sorted(by: { $0.key < $1.key }) {
            messages.append(["type": "live", "session": .string(session), "runId": .string(run), "html": .string(view.html)])
        }
        return messages
    }
}
