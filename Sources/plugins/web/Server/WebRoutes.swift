import FoundationEssentials
import Hummingbird
import HummingbirdWebSocket
import Logging
import MessengerKit
import NIOConcurrencyHelpers
import NIOCore
import PiRelaySDK

/// What each URL does. Every action a page takes is a messenger request (`chat.message`,
/// `chat.command`, `chat.answer`, `chat.bind`) as the signed-in web user, checked by pi-relayd
/// like a message from Discord or Telegram; the control socket is only read.
struct WebRoutes: Sendable {
    let board: Board
    let inbox: Inbox<WebHandoff>
    let connection: PluginConnection
    let signIns: SignIns
    let allowlist: Allowlist
    let downloads: Downloads
    let control: ControlReader
    let changes: SessionChanges
    let directory: SessionDirectory
    let spoolDir: String
    /// Where a page may start a session (`web.roots`).
    let roots: [String]
    let cookie: WebCookie
    let logger: Logger
    let wrongCodes = NIOLockedValueBox(WrongCodes())
    let channels: PageChannels

    func register(on router: Router<WebContext>) {
        router.get("/") { _, context in Self.page(signedIn: context.user != nil) }
        router.get("/s/:session") { _, context in Self.page(signedIn: context.user != nil) }
        router.get("/status") { _, context in Self.page(signedIn: context.user != nil) }
        router.get("/approvals") { _, context in Self.page(signedIn: context.user != nil) }
        router.get("/assets/app.js") { _, _ in Self.asset(WebAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/assets/style.css") { _, _ in Self.asset(WebAssets.style, type: "text/css; charset=utf-8") }
        router.get("/pair/:code") { _, context in Self.confirmPairing(code: try context.parameters.require("code")) }
        router.post("/pair/:code") { request, context in try await pair(request, context) }
        router.post("/signout") { _, context in await signOut(context) }
        router.get("/files/:token") { _, context in try await download(context) }
        router.get("/api/approvals") { _, _ in try await read(.approvals, ["limit": 100]) }
        router.get("/api/status") { _, _ in try await read(.status, [:]) }
        // Who this browser is signed in as: a page whose socket was refused asks, and a 401
        // (from the guard) tells it to show the sign-in page.
        router.get("/api/me") { _, context in Self.json(["user": .string(context.user ?? "")]) }
        router.post("/api/new") { request, context in try await newSession(request, context) }
        router.post("/api/sessions/:session/prompt") { request, context in try await prompt(request, context) }
        router.post("/api/sessions/:session/command") { request, context in try await command(request, context) }
        router.post("/api/sessions/:session/answer") { request, context in try await answer(request, context) }
        router.get("/api/sessions/:session/diff") { request, context in try await diff(request, context) }
        router.ws("/ws") { _, _ in
            .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let user = context.requestContext.user, let token = context.requestContext.token else { return }
            await serve(user: user, token: token, inbound: inbound, outbound: outbound, loop: context.requestContext.eventLoop)
        }
    }

    // MARK: Signing in

    /// Opening the link shows a button and uses nothing up: a link preview or a prefetch (a GET)
    /// must not spend the code, nor become the signed-in browser.
    private static func confirmPairing(code: String) -> Response {
        let safe = code.filter { $0.isLetter || $0.isNumber }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let page =
            WebAssets.head(title: "pi-relayd: sign in", script: false) + """
                <body><main id="signin"><h1>pi-relayd</h1>
                <p>Sign in to the dashboard in this browser? The link then stops working.</p>
                <form method="post" action="/pair/\(safe)"><button id="signin-button" type="submit">Sign in</button></form>
                </main></body></html>
                """
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// The button's POST: pi-relayd checks the code (once, 5 minutes, in constant time); a right
    /// one signs this browser in as a new web user and sends it on without the code in its
    /// address bar.
    private func pair(_ request: Request, _ context: WebContext) async throws -> Response {
        let code = try context.parameters.require("code")
        guard wrongCodes.withLockedValue({ $0.begin(now: .now) }) else {
            var response = WebGuard.plain(.tooManyRequests, "Too many wrong sign-in links: wait a minute, then run pi-relayd pair web again.")
            let wait = wrongCodes.withLockedValue { $0.retryAfter(now: .now) }
            // At least a second: a minute filled by tries still being checked has no failure to wait out yet.
            response.headers[.retryAfter] = String(max(1, Int(wait.inSeconds.rounded(.up))))
            return response
        }
        let user = "web-" + RandomName.hex(bytes: 4)
        let chat = Chat(messenger: "web", channel: "pair", user: user, userName: "browser " + user.dropFirst(4), dm: true, mentioned: true)
        let reply = await connection.pair(chat, code: code)
        wrongCodes.withLockedValue { $0.end(wrong: !reply.paired, now: .now) }
        guard reply.paired else {
            logger.warning("a sign-in link was refused: \(reply.text)")
            return WebGuard.plain(.forbidden, reply.text)
        }
        allowlist.admit(user)
        let token = await signIns.start(user: user)
        logger.notice("a browser signed in as \(user)")
        var response = Response(status: .seeOther)
        response.headers[.location] = "/"
        response.setCookie(cookie.make(token))
        return response
    }

    private func signOut(_ context: WebContext) async -> Response {
        if let token = context.token { await signIns.end(token: token) }
        var response = Response(status: .seeOther)
        response.headers[.location] = "/"
        response.setCookie(cookie.cleared)
        return response
    }

    // MARK: Actions, as the web user

    /// Send (a prompt, or the answer to an open question as pi-relayd decides), steer or
    /// follow up. A send goes through the inbox's journal: a crash before pi-relayd has it
    /// hands it over again, and the page's id makes a repeat one prompt.
    private func prompt(_ request: Request, _ context: WebContext) async throws -> Response {
        let (session, user) = try Self.session(context)
        let body = try await Self.body(request, context)
        let text = body["text"]?.stringValue ?? ""
        let mode = body["mode"]?.stringValue ?? "send"
        guard ["send", "steer", "followup"].contains(mode) else { throw HTTPError(.badRequest, message: "mode must be send, steer or followup") }
        let pictures = body["images"]?.arrayValue ?? []
        guard !text.trimmed().isEmpty || (mode == "send" && !pictures.isEmpty) else { throw HTTPError(.badRequest, message: "no text") }
        guard mode != "send" || !PageCommand.refused(text: text) else {
            return Self.json(["error": .string(PageCommand.refusal)], status: .forbidden)
        }
        guard await channels.bind(session, user: user) else {
            return Self.json(["error": "pi-relayd did not bind this page to the session; see logs/web.log"], status: .badGateway)
        }
        guard mode == "send" else {
            return try await reply(
                .chatCommand, ChatCommandParams(chat: WebPlace.chat(session: session, user: user), name: mode, args: ["text": text]))
        }
        guard let id = body["id"]?.stringValue, !id.isEmpty, id.count <= 100 else { throw HTTPError(.badRequest, message: "no message id") }
        let messageID = "web-" + id
        guard await !inbox.seen(messageID) else { return Self.json(["status": "duplicate"]) }
        var images: [WebUpload] = []
        for picture in pictures {
            do { images.append(try WebUpload.save(picture, spoolDir: spoolDir)) } catch {
                for image in images { try? FileManager.default.removeItem(atPath: image.path) }
                return Self.json(["error": .string(error.message)], status: .badRequest)
            }
        }
        guard await inbox.take(WebMessage(id: messageID, session: session, user: user, text: text, images: images)) else {
            // The same message sent again while the first was being taken: its copies go.
            for image in images { try? FileManager.default.removeItem(atPath: image.path) }
            return Self.json(["status": "duplicate"])
        }
        // Not on disk (the disk is full): a plugin killed now would lose it, and the page would
        // not send it again. Accepted once pi-relayd has it; otherwise the page keeps it, and a
        // second send is answered `duplicate` while this one is still on its way.
        if await !inbox.save(), await !inbox.handedOver(messageID, within: Self.unsavedHandOver) {
            return Self.json(
                ["error": "the dashboard could not save your message (is the disk full?); it is still on its way, and sending it again is safe"],
                status: .serviceUnavailable)
        }
        return Self.json(["status": "accepted"])
    }

    /// A chat command on the session's page (`stop`, `compact`, `model`, `action` for a
    /// button, …): pi-relayd decides what it may do, as for any chat.
    private func command(_ request: Request, _ context: WebContext) async throws -> Response {
        let (session, user) = try Self.session(context)
        let body = try await Self.body(request, context)
        guard let name = body["name"]?.stringValue, !name.isEmpty else { throw HTTPError(.badRequest, message: "no command name") }
        var args: [String: String] = [:]
        for (key, value) in body["args"]?.objectValue ?? [:] { args[key] = value.stringValue ?? value.serialized() }
        // A new session starts only where web.roots allow (/api/new), and a page stays its session's.
        guard !PageCommand.refused(name: name, args: args) else { return Self.json(["error": .string(PageCommand.refusal)], status: .forbidden) }
        await channels.bind(session, user: user)
        return try await reply(.chatCommand, ChatCommandParams(chat: WebPlace.chat(session: session, user: user), name: name, args: args))
    }

    /// A new session in a folder under `web.roots`, started as `/new` in the user's own chat
    /// (`u:USER`); the answer names the session so the page can open it.
    private func newSession(_ request: Request, _ context: WebContext) async throws -> Response {
        guard let user = context.user else { throw HTTPError(.unauthorized) }
        let body = try await Self.body(request, context)
        guard let asked = body["cwd"]?.stringValue, !asked.isEmpty else { throw HTTPError(.badRequest, message: "no folder") }
        guard let folder = FolderRoots(roots).resolve(asked) else {
            return Self.json(["error": .string("\(asked) is not a folder under \(roots.joined(separator: ", ")) (web.roots)")], status: .forbidden)
        }
        let name = body["name"]?.stringValue.flatMap { $0.trimmed().isEmpty ? nil : $0.trimmed() }
        var args = ["cwd": folder]
        if let name { args["name"] = name }
        let chat = Chat(messenger: "web", channel: "u:" + user, user: user, userName: user, dm: true, mentioned: true)
        let response = try await reply(.chatCommand, ChatCommandParams(chat: chat, name: "new", args: args))
        return response
    }

    /// A question's form: the first answer wins, wherever it came from.
    private func answer(_ request: Request, _ context: WebContext) async throws -> Response {
        let (session, user) = try Self.session(context)
        let body = try await Self.body(request, context)
        guard let question = body["questionId"]?.stringValue else { throw HTTPError(.badRequest, message: "no questionId") }
        let params = ChatAnswerParams(
            chat: WebPlace.chat(session: session, user: user), sessionID: session, questionID: question, value: body["value"]?.stringValue,
            confirmed: body["confirmed"]?.boolValue, cancelled: body["cancelled"]?.boolValue ?? false)
        return try await reply(.chatAnswer, params)
    }

    private func reply<Params>(_ method: RequestMethod<Params, Reply>, _ params: Params) async throws -> Response {
        do {
            return Self.json(try await connection.request(method, params).json)
        } catch let error as RemoteError {
            let status: HTTPResponse.Status = error.code == .notAuthorized ? .forbidden : .badGateway
            return Self.json(["error": .string(error.message)], status: status)
        }
    }

    // MARK: Reading

    /// The session's working tree against HEAD, or (`?since=run`) against the snapshot taken when
    /// its last run started. The folder is the session's own, from pi-relayd's list.
    private func diff(_ request: Request, _ context: WebContext) async throws -> Response {
        let (session, _) = try Self.session(context)
        guard let cwd = await directory.cwd(session) else { throw HTTPError(.notFound, message: "no such session") }
        guard let tree = await changes.tree(session, cwd: cwd) else { throw HTTPError(.badRequest, message: "a session id is letters and digits") }
        do {
            return Self.json(try await tree.diff(sinceRun: request.uri.queryParameters["since"] == "run"))
        } catch let error as RemoteError {
            return Self.json(["error": .string(error.message)], status: error.code == .notFound ? .notFound : .internalServerError)
        }
    }

    private func read(_ method: ControlMethod, _ params: JSONValue) async throws -> Response {
        do {
            let result = try await control.call(method, params)
            return Self.json(method == .status ? ["status": result] : result)
        } catch {
            return Self.json(["error": .string("pi-relayd did not answer: \(error)")], status: .badGateway)
        }
    }

    private func download(_ context: WebContext) async throws -> Response {
        guard let file = await downloads.file(try context.parameters.require("token")),
            let data = FileManager.default.contents(atPath: file.path)
        else { throw HTTPError(.notFound, message: "no such file (files are kept for the last 200 posts)") }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        let safe = file.name.filter { $0.isLetter || $0.isNumber || ".-_".contains($0) }
        headers[.contentDisposition] = "attachment; filename=\"\(safe.isEmpty ? "file" : safe)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// How long a prompt the journal could not keep waits for its hand-over before the page is
    /// told it was not saved: past a compaction's start, short of a person giving up.
    static let unsavedHandOver: Duration = .seconds(20)

    // MARK: The page's socket

    /// The longest an open page sleeps before it looks at its cookie's expiry again (the clock
    /// may be set meanwhile).
    static let expiryCheck: Duration = .seconds(3600)

    /// One page: the board's messages out; `{"type":"watch","session":ID}` in, to show a
    /// session (its page channel is bound on the way). A sign-in that ends closes its open pages
    /// at once, not only its next request: signed out or the user revoked (`SignIns.endings`),
    /// or the cookie expired. Nothing polls: an open page costs no wake-ups while nothing
    /// happens.
    private func serve(
        user: String, token: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, loop: any EventLoop
    ) async {
        let (id, messages) = board.open()
        await withTaskGroup(of: Void.self) { group in
            // On the socket's own loop: each message is written where it is woken.
            group.addTask(executorPreference: LoopExecutor(loop)) {
                for await _ in messages.ticks {
                    while let message = messages.take() {
                        do { try await outbound.write(.text(message)) } catch { return }
                    }
                }
            }
            group.addTask { [signIns, allowlist] in
                // Checked once first: a sign-out between the upgrade and here yields to no one.
                var endings = await signIns.endings().makeAsyncIterator()
                repeat {
                    guard await signIns.user(token: token, allowlist: allowlist) == user else {
                        try? await outbound.close(.policyViolation, reason: "signed out")
                        return
                    }
                } while await endings.next() != nil
            }
            group.addTask { [signIns, allowlist] in
                while let expires = await signIns.expiry(token: token) {
                    let left = expires.timeIntervalSinceNow
                    if left > 0, (try? await Task.sleep(for: min(.seconds(left), Self.expiryCheck))) == nil { return }
                    guard await signIns.user(token: token, allowlist: allowlist) == user else { break }
                }
                try? await outbound.close(.policyViolation, reason: "signed out")
            }
            // A child like the others: a client that never answers the close frame kept sending
            // here after its sign-out, and held the connection and its page for good. The first
            // task to end (the reader, the writer, a sign-out or expiry) ends them all.
            group.addTask { [self] in await self.read(inbound, page: id, user: user) }
            await group.next()
            group.cancelAll()
        }
        for session in board.close(id) { await channels.sync(session, user: user) }
    }

    /// What a page asks over its socket: which session it shows.
    private func read(_ inbound: WebSocketInboundStream, page id: Int, user: String) async {
        do {
            for try await message in inbound.messages(maxSize: 64 << 10) {
                guard case .text(let text) = message, let request = try? JSONValue.parse(text),
                    request["type"]?.stringValue == "watch", let session = request["session"]?.stringValue,
                    WebPlace.isFileSafe(session)
                else { continue }
                // Only a session pi-relayd has: each watched id keeps a page in memory, and a
                // signed-in socket sending made-up ids grew it without end.
                guard await channels.bind(session, user: user) else { continue }
                if board.watch(id, session: session) { await channels.sync(session, user: user) }
            }
        } catch {}
    }

    // MARK: Answers

    private static func session(_ context: WebContext) throws -> (String, String) {
        guard let user = context.user else { throw HTTPError(.unauthorized) }
        return (try context.parameters.require("session"), user)
    }

    private static func body(_ request: Request, _ context: WebContext) async throws -> JSONValue {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        guard let body = try? JSONValue.parse(bytes: buffer.readableBytesView), body.objectValue != nil else {
            throw HTTPError(.badRequest, message: "the body must be a JSON object")
        }
        return body
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value.serialized())))
    }

    private static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Every page is the same shell; the script draws what the address asks for. Signed out,
    /// it says how to sign in.
    private static func page(signedIn: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(
            status: signedIn ? .ok : .unauthorized, headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: signedIn ? WebAssets.shell : WebAssets.signIn)))
    }
}
