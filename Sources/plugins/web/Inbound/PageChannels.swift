import Logging
import PiRelaySDK

/// Each session's page channel at pi-relayd: bound once, with every caller waiting for the bind
/// in flight (a prompt must not go out on a channel not yet bound), and given live views only
/// while a page shows the session (`completion-only` otherwise: finals and questions still come
/// for the page's history, but no html is rendered for nobody). Mode changes go out one at a
/// time per session and end in the state the board is in when they are done.
actor PageChannels {
    private let connection: PluginConnection
    private let board: Board
    private let logger: Logger
    private var binds: [String: Task<Bool, Never>] = [:]
    private var modes: [String: Bool] = [:]
    private var syncing: Set<String> = []
    private var stale: Set<String> = []

    /// `bound`: sessions whose page channel pi-relayd already had bound (the welcome's).
    init(connection: PluginConnection, board: Board, logger: Logger, bound: Set<String>) {
        self.connection = connection
        self.board = board
        self.logger = logger
        for session in bound { binds[session] = Task { true } }
    }

    var bound: [String] { binds.keys.sorted() }

    /// Binds the page channel of `session` unless it is; false when pi-relayd refused.
    @discardableResult
    func bind(_ session: String, user: String) async -> Bool {
        if let bind = binds[session] { return await bind.value }
        // Unstructured on purpose: every caller for this session awaits this one request.
        let bind = Task { [connection, logger] () -> Bool in
            do {
                _ = try await connection.request(.chatBind, ChatBindParams(chat: WebPlace.chat(session: session, user: user), sessionID: session))
                return true
            } catch {
                logger.warning("could not bind the page of \(session): \(error)")
                return false
            }
        }
        binds[session] = bind
        let done = await bind.value
        if !done { binds[session] = nil }
        return done
    }

    /// Sets the channel's progress to what the board says: live while a page shows the session.
    func sync(_ session: String, user: String) async {
        guard syncing.insert(session).inserted else {
            stale.insert(session)
            return
        }
        defer { syncing.remove(session) }
        repeat {
            stale.remove(session)
            let live = board.isWatched(session)
            guard modes[session] != live else { continue }
            let params = ChatCommandParams(
                chat: WebPlace.chat(session: session, user: user), name: "progress", args: ["mode": live ? "normal" : "completion-only"])
            do {
                _ = try await connection.request(.chatCommand, params)
                modes[session] = live
            } catch {
                logger.warning("could not set the progress of \(session)'s page: \(error)")
            }
        } while stale.contains(session)
    }
}
