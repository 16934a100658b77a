import FoundationEssentials
import PiRelaySDK

/// What the open pages see, and the pages themselves: every WebSocket gets the sessions list, and
/// the posts and live views of each session it watches. A page that reads slowly loses its oldest
/// unsent messages, never holds up the relay (its buffer keeps the newest `buffered`). Each
/// session's posts are kept in the plugin's state (`pages/SESSION.json`), so a restarted plugin
/// shows the answers it had acknowledged: pi-relayd will not send them again.
actor Board {
    static let buffered = 1000

    private struct Watcher {
        let send: AsyncStream<String>.Continuation
        var sessions: Set<String> = []
    }

    private var sessions: JSONValue = .array([])
    private var pages: [String: BoardPage] = [:]
    private var watchers: [Int: Watcher] = [:]
    private var nextID = 0
    /// Ticks for `SessionWatch`: one each time a page opens, so a new page gets a fresh list at
    /// once rather than at the next tick, and one each time a shown session's row changes.
    nonisolated let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private let store: StateStore?

    init(store: StateStore? = nil) {
        self.store = store
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The file a session's posts are kept in; nil for an id that cannot name one.
    static func file(_ session: String) -> String? {
        WebPlace.isFileSafe(session) ? "page-\(session).json" : nil
    }

    /// Loads a session's saved posts the first time the board needs its page.
    private func load(_ session: String) {
        guard pages[session] == nil else { return }
        let saved = Self.file(session).flatMap { store?.load([JSONValue].self, from: $0) } ?? []
        pages[session] = BoardPage(items: saved)
    }

    private func save(_ session: String) async {
        guard let store, let file = Self.file(session), let page = pages[session] else { return }
        await store.save(page.items, to: file)
    }

    /// Asks for a fresh sessions list now.
    nonisolated func refresh() { wake.yield() }

    /// A new page's stream; the sessions list is its first message.
    func open() -> (id: Int, messages: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(Self.buffered))
        nextID += 1
        watchers[nextID] = Watcher(send: continuation)
        let first: JSONValue = ["type": "sessions", "sessions": sessions]
        continuation.yield(first.serialized())
        wake.yield()
        return (nextID, stream)
    }

    /// Closes page `id`; the sessions no open page shows any more.
    @discardableResult
    func close(_ id: Int) -> Set<String> {
        guard let watcher = watchers.removeValue(forKey: id) else { return [] }
        watcher.send.finish()
        return watcher.sessions.filter { !isWatched($0) }
    }

    /// The page `id` shows `session` from now on: it gets what is there, then what comes. True
    /// when no other page showed it.
    @discardableResult
    func watch(_ id: Int, session: String) -> Bool {
        guard var watcher = watchers[id] else { return false }
        let first = !isWatched(session)
        watcher.sessions.insert(session)
        watchers[id] = watcher
        load(session)
        for message in pages[session, default: BoardPage()].backlog(session: session) { watcher.send.yield(message.serialized()) }
        return first
    }

    func isWatched(_ session: String) -> Bool { watchers.values.contains { $0.sessions.contains(session) } }

    var pageCount: Int { watchers.count }

    /// True while a page shows no one session (the sessions list, the status page), which wants
    /// the list every second.
    var showsList: Bool { watchers.values.contains { $0.sessions.isEmpty } }

    /// A session a page shows changed in a way its row tells (a run started or ended, a question
    /// came or was answered): a fresh list now rather than at the next slow tick.
    private func rowChanged(_ session: String) {
        if isWatched(session) { wake.yield() }
    }

    /// `session`'s run started (pi-relayd says so with `chat.typing`, before any text): its row
    /// shows it busy at once.
    func runStarted(_ session: String) { rowChanged(session) }

    /// When each session's current run was first seen here, for its elapsed time.
    private var runsSince: [String: String] = [:]

    /// The sessions list, sent to every page when it changed; a running session carries when its
    /// run started (`runStartedAt`).
    func show(sessions list: JSONValue) {
        let list: JSONValue = .array(
            (list.arrayValue ?? []).map { session in
                guard let id = session["id"]?.stringValue, let since = runsSince[id] else { return session }
                var session = session
                session["runStartedAt"] = .string(since)
                return session
            })
        guard list != sessions else { return }
        sessions = list
        broadcast(["type": "sessions", "sessions": list], to: nil)
    }

    /// A post (final, notice, reply, question, echo, file) on `session`'s page.
    func add(_ item: JSONValue, id: String, session: String) async {
        load(session)
        guard pages[session, default: BoardPage()].add(item, id: id) else { return }
        broadcast(["type": "item", "session": .string(session), "item": item], to: session)
        rowChanged(session)
        if item["kind"] == "final" {
            runsSince[session] = nil
            changed(session)
        }
        // Last: the page is shown in the order posts came, whatever the disk does meanwhile.
        await save(session)
    }

    /// A run's newest view. True when it is the first view of a run this board has seen.
    @discardableResult
    func live(session: String, run: String, rev: Int, html: String) -> Bool {
        load(session)
        let first = pages[session]?.live[run] == nil && !(pages[session]?.finished(run) ?? false)
        guard pages[session, default: BoardPage()].live(run: run, rev: rev, html: html) else { return false }
        if first {
            runsSince[session] = ISO8601.string(Date())
            rowChanged(session)
        }
        broadcast(["type": "live", "session": .string(session), "runId": .string(run), "html": .string(html)], to: session)
        if ContinuousClock.now - (changedAt[session] ?? .now - .seconds(60)) >= Self.changesEvery { changed(session) }
        return first
    }

    /// At most this often while a run goes on, a page showing the session's changes reloads them.
    static let changesEvery: Duration = .seconds(2)
    private var changedAt: [String: ContinuousClock.Instant] = [:]

    /// The session's files may have changed (a run ended, tools ran): open diffs reload.
    func changed(_ session: String) {
        changedAt[session] = .now
        broadcast(["type": "changed", "session": .string(session)], to: session)
    }

    /// The session's summary from the last sessions list.
    func session(_ id: String) -> JSONValue? {
        sessions.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    /// A question ended: its card shows how, without controls.
    func close(question: String, text: String, session: String) async {
        load(session)
        let closed = pages[session, default: BoardPage()].close(question: question, text: text)
        broadcast(["type": "closed", "session": .string(session), "questionId": .string(question), "text": .string(text)], to: session)
        rowChanged(session)
        if closed { await save(session) }
    }

    /// `session` nil: every page.
    private func broadcast(_ message: JSONValue, to session: String?) {
        let targets = watchers.values.filter { session == nil || $0.sessions.contains(session!) }
        guard !targets.isEmpty else { return }
        let text = message.serialized()
        for watcher in targets { watcher.send.yield(text) }
    }
}
