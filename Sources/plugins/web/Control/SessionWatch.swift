import Logging
import PiRelaySDK

/// Keeps the board's sessions list fresh from the control socket while any page is open (no
/// page, no polling: an idle dashboard costs nothing). The list page reads it every second. A
/// session's page shows only its own row, which changes when its run starts or ends, a question
/// comes or goes: the board asks for the list at those moments, and the clock every
/// `sessionPageEvery` seconds for the rest (a rename, a model switch). A list page opened while
/// the clock sleeps that long gets the list at once, and every second from the clock's next tick. With one session page
/// open and 20 runs streaming, reading 50 sessions every second was about a sixth of what the
/// dashboard added (`make bench`, web: 1.37 % of a core before, 1.17 % after, means of 3 and 4).
struct SessionWatch: Sendable {
    static let interval: Duration = .seconds(1)
    /// Ticks between the lists read for session pages alone.
    static let sessionPageEvery = 5
    /// Each folder's branch and changed files are read this often (git walks the tree).
    static let gitEvery = 10

    let control: ControlReader
    let board: Board
    /// Told the whole list when it changes, to drop the folders of sessions that went.
    let changes: SessionChanges
    let logger: Logger

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            // The clock's tick, into the same stream a newly opened page wakes. It sleeps as long
            // as the pages allow: every wake-up of an idle plugin costs its threads a cold start
            // (a tenth of what an open session page cost while 20 runs streamed, `make bench`).
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: board.showsList ? Self.interval : Self.interval * Self.sessionPageEvery)
                    board.refresh()
                }
            }
            group.addTask { await watch() }
            await group.next()
            group.cancelAll()
        }
    }

    private func watch() async {
        var failing = false
        var round = 0
        var git: [String: GitSummary] = [:]
        var known: Set<String>?
        for await _ in board.wakeups {
            guard board.pageCount > 0 else { continue }
            do {
                let list = try await control.call(.sessions)
                board.show(sessions: Self.with(git, list))
                // Only a list read whole says which sessions are gone.
                if let sessions = list.arrayValue {
                    let ids = Set(sessions.compactMap { $0["id"]?.stringValue })
                    // Also at each git round: a snapshot taken for a session as it ended may
                    // come after the prune its leaving set off.
                    if ids != known || round % Self.gitEvery == 0 { known = await changes.prune(keeping: ids) ? ids : nil }
                }
                // The list goes out first: git walks every folder, which a page need not wait for.
                if round % Self.gitEvery == 0 {
                    git = await Self.summaries(list)
                    board.show(sessions: Self.with(git, list))
                }
                round += 1
                if failing { logger.notice("the control socket answers again") }
                failing = false
            } catch {
                if !failing { logger.warning("cannot read the sessions list from \(control.path): \(error)") }
                failing = true
            }
        }
    }

    /// Each distinct folder's summary, read one after the other.
    static func summaries(_ list: JSONValue) async -> [String: GitSummary] {
        var out: [String: GitSummary] = [:]
        for cwd in Set((list.arrayValue ?? []).compactMap { $0["cwd"]?.stringValue }) {
            if let summary = await GitSummary.read(cwd) { out[cwd] = summary }
        }
        return out
    }

    static func with(_ git: [String: GitSummary], _ list: JSONValue) -> JSONValue {
        .array(
            (list.arrayValue ?? []).map { session in
                guard let cwd = session["cwd"]?.stringValue, let summary = git[cwd] else { return session }
                var session = session
                session["branch"] = .string(summary.branch)
                session["dirty"] = JSONValue(summary.dirty)
                return session
            })
    }
}
