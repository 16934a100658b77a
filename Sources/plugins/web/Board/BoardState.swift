import FoundationEssentials
import PiRelaySDK

/// The board's pages, watchers and sessions list, changed under `Board`'s lock. Each change
/// sends the open pages what it means for them.
struct BoardState: Sendable {
    /// At most this often while a run goes on, a page showing the session's changes reloads them.
    static let changesEvery: Duration = .seconds(2)

    private struct Watcher {
        let send: PageOutbox
        var sessions: Set<String> = []
    }

    private let store: StateStore?
    private let wake: AsyncStream<Void>.Continuation
    private var sessions: JSONValue = .array([])
    private var pages: [String: BoardPage] = [:]
    private var watchers: [Int: Watcher] = [:]
    private var nextID = 0
    /// When each session's current run was first seen here, for its elapsed time.
    private var runsSince: [String: String] = [:]
    private var changedAt: [String: ContinuousClock.Instant] = [:]
    /// Each page's posts, counted at each change: saves reach the disk in any order, and an
    /// older one must not overwrite a newer.
    private var versions: [String: Int] = [:]

    init(store: StateStore?, wake: AsyncStream<Void>.Continuation) {
        self.store = store
        self.wake = wake
    }

    /// Loads a session's saved posts the first time the board needs its page.
    private mutating func load(_ session: String) {
        guard pages[session] == nil else { return }
        let saved = Board.file(session).flatMap { store?.load([JSONValue].self, from: $0) } ?? []
        pages[session] = BoardPage(items: saved)
    }

    mutating func open(_ send: PageOutbox) -> Int {
        nextID += 1
        watchers[nextID] = Watcher(send: send)
        let first: JSONValue = ["type": "sessions", "sessions": sessions]
        send.put(first.serialized(), key: "sessions")
        return nextID
    }

    mutating func close(_ id: Int) -> Set<String> {
        guard let watcher = watchers.removeValue(forKey: id) else { return [] }
        watcher.send.finish()
        return watcher.sessions.filter { !isWatched($0) }
    }

    mutating func watch(_ id: Int, session: String) -> Bool {
        guard var watcher = watchers[id] else { return false }
        let first = !isWatched(session)
        watcher.sessions.insert(session)
        watchers[id] = watcher
        load(session)
        for message in pages[session, default: BoardPage()].backlog(session: session) { watcher.send.put(message.serialized()) }
        return first
    }

    func isWatched(_ session: String) -> Bool { watchers.values.contains { $0.sessions.contains(session) } }

    var pageCount: Int { watchers.count }

    /// Sessions whose page the board holds in memory.
    var sessionPageCount: Int { pages.count }

    var showsList: Bool { watchers.values.contains { $0.sessions.isEmpty } }

    /// A session a page shows changed in a way its row tells (a run started or ended, a question
    /// came or was answered): a fresh list now rather than at the next slow tick.
    func rowChanged(_ session: String) {
        if isWatched(session) { wake.yield() }
    }

    mutating func show(sessions list: JSONValue) {
        let list: JSONValue = .array(
            (list.arrayValue ?? []).map { session in
                guard let id = session["id"]?.stringValue, let since = runsSince[id] else { return session }
                var session = session
                session["runStartedAt"] = .string(since)
                return session
            })
        guard list != sessions else { return }
        sessions = list
        broadcast(["type": "sessions", "sessions": list], to: nil, key: "sessions")
    }

    /// The page's posts to save and their version, or nil when `id` was there already.
    mutating func add(_ item: JSONValue, id: String, session: String) -> (items: [JSONValue], version: Int)? {
        load(session)
        guard pages[session, default: BoardPage()].add(item, id: id) else { return nil }
        broadcast(["type": "item", "session": .string(session), "item": item], to: session)
        rowChanged(session)
        if item["kind"] == "final" {
            runsSince[session] = nil
            changed(session)
        }
        return toSave(session)
    }

    private mutating func toSave(_ session: String) -> (items: [JSONValue], version: Int) {
        versions[session, default: 0] += 1
        return (pages[session]?.items ?? [], versions[session, default: 0])
    }

    mutating func live(session: String, run: String, rev: Int, html: String) -> Bool {
        load(session)
        let first = pages[session]?.live[run] == nil && !(pages[session]?.finished(run) ?? false)
        guard pages[session, default: BoardPage()].live(run: run, rev: rev, html: html) else { return false }
        if first {
            runsSince[session] = ISO8601.string(Date())
            rowChanged(session)
        }
        broadcast(
            ["type": "live", "session": .string(session), "runId": .string(run), "html": .string(html)], to: session, key: "live:\(session):\(run)")
        if ContinuousClock.now - (changedAt[session] ?? .now - .seconds(60)) >= Self.changesEvery { changed(session) }
        return first
    }

    mutating func changed(_ session: String) {
        changedAt[session] = .now
        broadcast(["type": "changed", "session": .string(session)], to: session, key: "changed:\(session)")
    }

    func session(_ id: String) -> JSONValue? {
        sessions.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    /// The page's posts to save and their version, or nil when the question is not on it.
    mutating func close(question: String, text: String, session: String) -> (items: [JSONValue], version: Int)? {
        load(session)
        let closed = pages[session, default: BoardPage()].close(question: question, text: text)
        broadcast(["type": "closed", "session": .string(session), "questionId": .string(question), "text": .string(text)], to: session)
        rowChanged(session)
        return closed ? toSave(session) : nil
    }

    /// `session` nil: every page. `key`: a message of that key still waiting is replaced.
    private func broadcast(_ message: JSONValue, to session: String?, key: String? = nil) {
        let targets = watchers.values.filter { session == nil || $0.sessions.contains(session!) }
        guard !targets.isEmpty else { return }
        let text = message.serialized()
        for watcher in targets { watcher.send.put(text, key: key) }
    }
}
