import FoundationEssentials
import PiRelaySDK
import Synchronization

/// What the open pages see, and the pages themselves: every WebSocket gets the sessions list, and
/// the posts and live views of each session it watches. A page that reads slowly gets each run's
/// newest view and loses its oldest unsent messages past a bound, never holds up the relay
/// (`PageOutbox`). Each
/// session's posts are kept in the plugin's state (`pages/SESSION.json`), so a restarted plugin
/// shows the answers it had acknowledged: pi-relayd will not send them again.
///
/// A lock rather than an actor: a live view is put on the board by the thread that read it from
/// pi-relayd (`WebRelay.takeAtOnce`), with no task in between, and only the posts' saving waits.
final class Board: Sendable {
    private let state: Mutex<BoardState>
    private let store: StateStore?
    /// Ticks for `SessionWatch`: one each time a page opens, so a new page gets a fresh list at
    /// once rather than at the next tick, and one each time a shown session's row changes.
    let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(store: StateStore? = nil) {
        self.store = store
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        state = Mutex(BoardState(store: store, wake: wake))
    }

    /// The file a session's posts are kept in; nil for an id that cannot name one.
    static func file(_ session: String) -> String? {
        WebPlace.isFileSafe(session) ? "page-\(session).json" : nil
    }

    /// Asks for a fresh sessions list now.
    func refresh() { wake.yield() }

    /// A new page's outbox; the sessions list is its first message.
    func open() -> (id: Int, messages: PageOutbox) {
        let outbox = PageOutbox()
        let id = state.withLock { $0.open(outbox) }
        wake.yield()
        return (id, outbox)
    }

    /// Closes page `id`; the sessions no open page shows any more.
    @discardableResult
    func close(_ id: Int) -> Set<String> { state.withLock { $0.close(id) } }

    /// The page `id` shows `session` from now on: it gets what is there, then what comes. True
    /// when no other page showed it.
    @discardableResult
    func watch(_ id: Int, session: String) -> Bool { state.withLock { $0.watch(id, session: session) } }

    func isWatched(_ session: String) -> Bool { state.withLock { $0.isWatched(session) } }

    var pageCount: Int { state.withLock { $0.pageCount } }

    var sessionPageCount: Int { state.withLock { $0.sessionPageCount } }

    /// True while a page shows no one session (the sessions list, the status page), which wants
    /// the list every second.
    var showsList: Bool { state.withLock { $0.showsList } }

    /// `session`'s run started (pi-relayd says so with `chat.typing`, before any text): its row
    /// shows it busy at once.
    func runStarted(_ session: String) { state.withLock { $0.rowChanged(session) } }

    /// The sessions list, sent to every page when it changed; a running session carries when its
    /// run started (`runStartedAt`).
    func show(sessions list: JSONValue) { state.withLock { $0.show(sessions: list) } }

    /// A post (final, notice, reply, question, echo, file) on `session`'s page.
    func add(_ item: JSONValue, id: String, session: String) async {
        // Saved after it is shown: the page gets posts in the order they came, whatever the disk
        // does meanwhile.
        guard let page = state.withLock({ $0.add(item, id: id, session: session) }) else { return }
        await save(page, session: session)
    }

    /// A run's newest view. True when it is the first view of a run this board has seen.
    @discardableResult
    func live(session: String, run: String, rev: Int, html: String) -> Bool {
        state.withLock { $0.live(session: session, run: run, rev: rev, html: html) }
    }

    /// The session's files may have changed (a run ended, tools ran): open diffs reload.
    func changed(_ session: String) { state.withLock { $0.changed(session) } }

    /// The session's summary from the last sessions list.
    func session(_ id: String) -> JSONValue? { state.withLock { $0.session(id) } }

    /// A question ended: its card shows how, without controls.
    func close(question: String, text: String, session: String) async {
        guard let page = state.withLock({ $0.close(question: question, text: text, session: session) }) else { return }
        await save(page, session: session)
    }

    /// Two posts for a page come side by side (a lane's post, the inbox's reply), and the older
    /// snapshot may reach the store last: the store keeps the newest version.
    private func save(_ page: (items: [JSONValue], version: Int), session: String) async {
        guard let store, let file = Self.file(session) else { return }
        await store.save(page.items, to: file, version: page.version)
    }
}
