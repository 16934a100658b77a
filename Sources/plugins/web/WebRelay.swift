import FoundationEssentials
import Logging
import MessengerKit
import NIOConcurrencyHelpers
import PiRelaySDK

/// pi-relay-web: the local web dashboard, a messenger whose chats are browser pages. Each
/// session's page is a chat (`s:SESSION`) of the signed-in web user, so prompts, questions,
/// approvals, finals and live views go through the same supervisor code as on Discord; the
/// formatter renders them in the `html` dialect, and the page shows them without running any.
public struct WebRelay: MessengerRelay {
    public static let manifest = PluginManifest(
        name: "web", version: "0.1.0", roles: ["messenger"],
        // A page takes a new view as fast as it comes; whole answers fit in one post.
        limits: ["maxMessageLength": 65536, "liveIntervalMs": 100, "maxUploadBytes": 8 << 20],
        summary: "a local web dashboard: sessions live in the browser, prompts, questions and approvals, signed in by pairing",
        dialect: .html, config: WebConfig.schema)

    let config: WebConfig
    public let logger: Logger
    public let allowlist: Allowlist
    /// The pages, the inbox and the rest of what requests reach, which the relay's deliveries
    /// feed too.
    let routes: WebRoutes
    let server: WebServer
    let watch: SessionWatch
    /// A web user to send the start's progress commands as (any allowed one will do).
    let someUser: String?
    /// The plugin's state files, whose refused writes `status` reports.
    let store: StateStore
    let started = Date()

    public init(context: PluginContext) async throws {
        let config = try WebConfig.load(context.config, newSessionFolder: context.welcome.newSessionFolder)
        self.config = config
        logger = context.logger
        let store = StateStore(directory: context.stateDir)
        self.store = store
        let board = Board(store: store)
        let allowlist = Allowlist(configured: config.allowedUsers, supervisor: context.welcome.allowedUsers)
        self.allowlist = allowlist
        let signIns = SignIns(store: store)
        let changes = SessionChanges(folder: context.stateDir + "/git", logger: logger)
        let control = ControlReader(path: context.welcome.home + "/relayd.sock")
        let directory = SessionDirectory(board: board, control: control)
        let inbox = Inbox(
            adapter: WebHandoff(board: board, changes: changes, directory: directory), receiver: context.connection, store: store,
            empty: InboxRecord(), logger: logger)
        watch = SessionWatch(control: control, board: board, changes: changes, logger: logger)
        let cookie = WebCookie(tls: config.usesTLS)
        let bound = Set(context.welcome.bindings.filter { $0.messenger == "web" }.compactMap { WebPlace.session(Target(channel: $0.channel)) })
        let routes = WebRoutes(
            board: board, inbox: inbox, connection: context.connection, signIns: signIns, allowlist: allowlist,
            downloads: Downloads(spoolDir: context.spoolDir, store: store), control: control,
            changes: changes, directory: directory, spoolDir: context.spoolDir, roots: config.roots,
            cookie: cookie, logger: logger,
            channels: PageChannels(connection: context.connection, board: board, logger: logger, bound: bound))
        self.routes = routes
        someUser = context.welcome.allowedUsers.first ?? config.allowedUsers.first
        server = WebServer(
            config: config, routes: routes,
            guardrail: WebGuard(rules: RequestRules(config: config), signIns: signIns, allowlist: allowlist, cookieName: cookie.name),
            logger: logger, port: NIOLockedValueBox(nil))
    }

    public func run() async throws {
        await routes.inbox.resumePending()
        // Each child says whether its end ends the run: the server's and the watch's do.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await server.run()
                return true
            }
            group.addTask {
                await watch.run()
                return true
            }
            // No page is open yet: the pages bound before get no live views until one opens.
            // Beside the server, not before it: a request per page, and a restarted plugin's
            // pages reconnect meanwhile (PageChannels keeps each page's mode to the board's).
            group.addTask {
                if let someUser {
                    for session in await routes.channels.bound { await routes.channels.sync(session, user: someUser) }
                }
                return false
            }
            while let ends = try await group.next(), !ends {}
            group.cancelAll()
        }
    }

    /// By page: one session's posts in order, pages side by side.
    public func lane(of method: String, params: JSONValue) -> String {
        params["target"]?["channel"]?.stringValue ?? ""
    }

    /// The dashboard's address as links give it.
    var base: String {
        let port = server.port.withLockedValue { $0 } ?? config.listen.port
        return "\(config.usesTLS ? "https" : "http")://\(ListenAddress.urlHost(config.linkHost)):\(port)"
    }

    public func post(delivery: String, _ params: ChatPostParams) async throws {
        guard let session = WebPlace.session(params.target) ?? params.sessionID else {
            logger.debug("chat.post to \(params.target.channel), which is no session's page, ignored")
            return
        }
        var files: [JSONValue] = []
        for file in params.files { files.append(await routes.downloads.offer(file)) }
        await routes.board.add(WebItem.post(params, id: delivery, files: files), id: delivery, session: session)
    }

    public func showTyping(_ target: Target) async {
        guard let session = WebPlace.session(target) else { return }
        routes.board.runStarted(session)
    }

    public func closeQuestion(_ params: QuestionClosedParams) async throws {
        await routes.board.close(question: params.questionID, text: params.text, session: WebPlace.session(params.target) ?? params.sessionID)
    }

    /// A page is one session; a new session gets its own page, not a thread.
    public func openThread(_ params: ChatThreadParams) async throws -> Target {
        throw RemoteError(code: .other("unsupported"), message: "the web dashboard has no threads: open the new session's page")
    }

    public func identify(_ params: MessengerIdentityParams) async throws -> MessengerIdentity {
        MessengerIdentity(
            id: "web", name: "pi-relayd web dashboard", link: base + "/", pairLink: params.pairCode.map { base + "/pair/" + $0 },
            pairByLink: true, notes: config.listen.isLoopback ? ["From another machine: ssh -L 7780:127.0.0.1:\(config.listen.port) THIS-HOST"] : [])
    }

    /// pi-relayd's input is read on the dashboard's event loop (`WebLoop`), which writes the pages'
    /// sockets too; elsewhere (a regular file) as any plugin's is.
    public static func readInput(
        fd: Int32, closingAtEnd: Bool, read: @escaping @Sendable (UnsafeRawBufferPointer) -> Void, end: @escaping @Sendable () -> Void
    ) {
        WebLoop.read(fd: fd, closingAtEnd: closingAtEnd, each: read, end: end) {
            FDLineReader.readChunks(fd: fd, closingAtEnd: closingAtEnd, each: read, end: end)
        }
    }

    /// A live view goes on the board from the thread that read it: a page's view then wakes only
    /// the page's socket, not a lane and the board too (the dashboard's CPU per view).
    public func takeAtOnce(notification method: String, params: JSONValue) -> Bool {
        guard MethodName(rawValue: method) == .chatLive, let update = try? ChatLiveParams(json: params) else { return false }
        show(update)
        return true
    }

    public func showLive(_ update: ChatLiveParams) async { show(update) }

    /// A revoked user's open pages close at once.
    public func allowlistChanged() async { await routes.signIns.mayHaveEnded() }

    private func show(_ update: ChatLiveParams) {
        guard let session = WebPlace.session(update.target) else { return }
        let first = routes.board.live(
            session: session, run: update.runID, rev: update.rev, html: (update.chunks + [update.tail]).joined(separator: "\n"))
        if first {
            // Unstructured on purpose: the live view must not wait for git to stage the tree.
            Task { [changes = routes.changes, directory = routes.directory] in
                await changes.runStarts(session, cwd: await directory.cwd(session))
            }
        }
    }

    public func status() async -> JSONValue {
        [
            "url": .string(base + "/"), "pages": JSONValue(routes.board.pageCount), "sessionPages": JSONValue(routes.board.sessionPageCount),
            "signedIn": JSONValue(await routes.signIns.count),
            "relayed": JSONValue(await routes.inbox.relayed), "allowedUsers": JSONValue(allowlist.count),
            "uptimeSeconds": JSONValue(Int(Date().timeIntervalSince(started))),
            "problems": .array(await store.problems.map { .string($0) }),
        ]
    }
}
