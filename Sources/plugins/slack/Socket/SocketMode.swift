import FoundationEssentials
import HTTPTypes
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK
import WSClient

/// Socket Mode (spec section 3): a WebSocket opened from a one-shot URL that
/// `apps.connections.open` hands out. Each envelope is handed to `take` (which journals it, a
/// matter of milliseconds) and then acknowledged on the socket it came in on, before any slow
/// work. On a `disconnect` warning the next connection is opened at once and the old one keeps
/// acknowledging until Slack closes it, so nothing falls between two sockets; a connection that
/// just ends is redialled with backoff, reset once a `hello` arrives. A refused token or Socket
/// Mode switched off ends the plugin with exit 78: waiting will not fix either.
///
/// When a federation shares the app with other machines (docs/FEDERATION.md), only the lease's
/// holder holds a socket: the gate is watched, the socket closed while this machine stands by and
/// opened again when it takes over; and a message's event is acknowledged only once pi-relayd has
/// it (`Receipt`), so a frozen machine leaves it to Slack's retries and the next holder.
actor SocketMode {
    private let api: WebAPI
    private let proxy: ProxySetting
    private let appTokenEnv: String
    private let logger: Logger
    private let take: @Sendable (Envelope) async -> Receipt
    private let handedOver: @Sendable (String, Duration) async -> Bool
    private let gate: IngressGate
    private var connection = 0
    private var outboxes: [Int: AsyncStream<SocketOutgoing>.Continuation] = [:]
    private let news: AsyncStream<SocketNews>
    private let newsIn: AsyncStream<SocketNews>.Continuation
    private(set) var connected = false
    private(set) var envelopes = 0

    /// How long an event of a shared app waits for its message's hand-over: within Slack's 3 s.
    static let handOverWithin: Duration = .milliseconds(2500)

    /// `take` journals an envelope and says when to acknowledge it; `handedOver` whether pi-relayd
    /// got a message within a time (`Inbox.handedOver`).
    init(
        api: WebAPI, proxy: ProxySetting, appTokenEnv: String, gate: IngressGate, logger: Logger,
        take: @escaping @Sendable (Envelope) async -> Receipt, handedOver: @escaping @Sendable (String, Duration) async -> Bool
    ) {
        self.api = api
        self.gate = gate
        self.handedOver = handedOver
        self.proxy = proxy
        self.appTokenEnv = appTokenEnv
        self.logger = logger
        self.take = take
        (news, newsIn) = AsyncStream.makeStream(of: SocketNews.self, bufferingPolicy: .unbounded)
    }

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var backoff = 1.0
            // Connections are the group's children, added here only: the group never leaves this
            // body, which is the one task that may touch it.
            func start(_ connection: Connection) {
                group.addTask { await self.serve(connection) }
            }
            // Why this machine stands by (a federation's lease); nil while it takes the traffic.
            var standing = gate.standBy()
            if gate.managed {
                let initial = standing != nil
                group.addTask { await self.watch(standingBy: initial) }
            }
            if let standing {
                logger.notice("socket mode: not connecting: \(standing)")
            } else {
                start(try await dial())
            }
            for await item in news {
                switch item {
                case .standBy(let why):
                    standing = why
                    connected = false
                    logger.notice("socket mode: closing the socket: \(why)")
                    for id in outboxes.keys { close(id) }
                case .take:
                    standing = nil
                    logger.notice("socket mode: connecting: this machine holds the app's ingress")
                    if outboxes[connection] == nil { start(try await dial()) }
                case .hello(let id):
                    guard id == connection else { continue }
                    guard standing == nil else {
                        close(id)
                        continue
                    }
                    backoff = 1
                    connected = true
                    logger.info("socket mode: connection \(id) is up")
                    // A replaced connection Slack forgets to close is closed after a while.
                    for old in outboxes.keys where old != id {
                        group.addTask {
                            try? await Task.sleep(for: .seconds(15))
                            await self.close(old)
                        }
                    }
                case .replace(let id, let reason):
                    guard id == connection, standing == nil else { continue }
                    logger.info("socket mode: Slack will close connection \(id) (\(reason)); opening the next one first")
                    start(try await dial())
                case .linkDisabled:
                    throw PluginExit.notConfigured(
                        "Slack says Socket Mode is switched off for this app: turn it on (app settings → Socket Mode) and restart the plugin")
                case .tooMany(let id):
                    guard id == connection else { continue }
                    backoff = max(backoff, 30)
                case .ended(let id, let why):
                    outboxes[id] = nil
                    guard id == connection else {
                        logger.debug("socket mode: replaced connection \(id) ended (\(why))")
                        continue
                    }
                    connected = false
                    guard standing == nil else {
                        logger.info("socket mode: connection \(id) closed (\(why)); standing by")
                        continue
                    }
                    logger.warning("socket mode: connection \(id) ended (\(why)); reconnecting in \(Int(backoff)) s")
                    try await Task.sleep(for: .milliseconds(Int(backoff * 1000)))
                    backoff = min(backoff * 2, 60)
                    start(try await dial())
                }
            }
        }
    }

    /// Reports each change of the gate (a federation's lease, pi-relayd's silence) as news. A
    /// quarter of a second is well inside the time the lease takes to pass to another machine.
    private nonisolated func watch(standingBy initial: Bool) async {
        var standing = initial
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            let why = gate.standBy()
            guard (why != nil) != standing else { continue }
            standing = why != nil
            await report(why.map(SocketNews.standBy) ?? .take)
        }
    }

    /// What a new connection needs: its number, its one-shot URL and its outbox.
    struct Connection: Sendable {
        var id: Int
        var url: String
        var outgoing: AsyncStream<SocketOutgoing>
        var outgoingIn: AsyncStream<SocketOutgoing>.Continuation
    }

    /// A fresh URL (every connection needs its own) and the connection's outbox.
    private func dial() async throws -> Connection {
        var wait = 1.0
        var url = ""
        while url.isEmpty {
            do {
                let answer = try await api.call("apps.connections.open", token: .app)
                url = answer["url"]?.stringValue ?? ""
                if url.isEmpty { throw SlackAPIError(method: "apps.connections.open", status: 200, error: "no url in the answer") }
            } catch let error as SlackAPIError where error.isTokenProblem {
                throw PluginExit.notConfigured(
                    "Slack refused the app-level token (\(error.error)): \(appTokenEnv) must hold a current xapp-… token with connections:write (Basic Information → App-Level Tokens)"
                )
            } catch let error as SlackAPIError {
                logger.warning("socket mode: \(error); trying again in \(Int(wait)) s")
                try await Task.sleep(for: .milliseconds(Int(wait * 1000)))
                wait = min(wait * 2, 60)
            }
        }
        connection += 1
        let id = connection
        let (outgoing, outgoingIn) = AsyncStream.makeStream(of: SocketOutgoing.self, bufferingPolicy: .unbounded)
        outboxes[id] = outgoingIn
        return Connection(id: id, url: url, outgoing: outgoing, outgoingIn: outgoingIn)
    }

    /// Runs one connection to its end and reports it.
    private nonisolated func serve(_ connection: Connection) async {
        let why = await connect(url: connection.url, connection: connection.id, outgoing: connection.outgoing)
        connection.outgoingIn.finish()
        await report(.ended(connection.id, why: why))
    }

    private func report(_ item: SocketNews) { newsIn.yield(item) }

    private func close(_ id: Int) { outboxes[id]?.yield(.close) }

    private func send(_ text: String, on id: Int) { outboxes[id]?.yield(.text(text)) }

    /// One WebSocket connection, from connect to close; returns why it ended.
    private nonisolated func connect(url: String, connection id: Int, outgoing: AsyncStream<SocketOutgoing>) async -> String {
        // Envelopes are small, but a message with many blocks can pass the 16 KiB default. Our
        // pings find a half-open socket; Slack's are answered by the library.
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: 1 << 22, closeTimeout: .seconds(1), autoPing: .enabled(timePeriod: .seconds(10)))
        // The library logs frames at trace level: it gets no log output at all.
        let quiet = Logger(label: "slack-ws") { _ in SwiftLogNoOpLogHandler() }
        let handler: WebSocketDataHandler<WebSocketClient.Context> = { inbound, outbound, _ in
            await self.serve(inbound: inbound, outbound: outbound, outgoing: outgoing, connection: id)
        }
        do {
            let frame: WebSocketCloseFrame?
            if let settings = proxySettings(for: url) {
                frame = try await WebSocketClient.connect(
                    url: url, configuration: configuration, proxySettings: settings, logger: quiet, handler: handler)
            } else {
                frame = try await WebSocketClient.connect(url: url, configuration: configuration, logger: quiet, handler: handler)
            }
            guard let frame else { return "closed" }
            return "closed with \(UInt16(webSocketErrorCode: frame.closeCode))"
        } catch {
            // The URL's ticket is a one-shot secret: error texts are shortened to their kind.
            return "failed: \(type(of: error))"
        }
    }

    /// A reader and a writer for one connection; it ends when either does.
    private nonisolated func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, outgoing: AsyncStream<SocketOutgoing>, connection id: Int
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in outgoing {
                    switch item {
                    case .text(let text):
                        do { try await outbound.write(.text(text)) } catch { return }
                    case .close:
                        try? await outbound.close(.normalClosure, reason: nil)
                        return
                    }
                }
            }
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        guard case .text(let text) = message else { continue }
                        await self.receive(text, connection: id)
                    }
                } catch {}
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func receive(_ text: String, connection id: Int) async {
        guard let json = try? JSONValue.parse(text) else {
            logger.warning("socket mode: skipped a frame that is not JSON (\(text.utf8.count) bytes)")
            return
        }
        if let envelope = Envelope(json: json) {
            envelopes += 1
            switch await take(envelope) {
            case .onceHandedOver(let message) where gate.managed, .onceHandedOverUnsaved(let message):
                // Unstructured on purpose: the wait must not hold up this connection's reader.
                Task {
                    if await self.handedOver(message, Self.handOverWithin) {
                        await self.send(envelope.ack, on: id)
                    } else {
                        logger.warning("socket mode: pi-relayd did not take message \(message) in time; Slack will send it again")
                    }
                }
            default:
                send(envelope.ack, on: id)
            }
            return
        }
        switch json["type"]?.stringValue {
        case "hello"?:
            report(.hello(id))
        case "disconnect"?:
            let reason = json["reason"]?.stringValue ?? ""
            switch reason {
            case "link_disabled": report(.linkDisabled)
            case "too_many_websockets":
                logger.warning("socket mode: Slack says the app holds too many sockets; waiting before dialling again")
                report(.tooMany(id))
            default: report(.replace(id, reason: reason))
            }
        default:
            if json["envelope_id"] != nil {
                // An envelope of a kind we do not handle is still acknowledged, or Slack repeats it.
                if let envelopeID = json["envelope_id"]?.stringValue {
                    send(String(decoding: (["envelope_id": .string(envelopeID)] as JSONValue).serializedBytes(), as: UTF8.self), on: id)
                }
            }
        }
    }

    private nonisolated func proxySettings(for address: String) -> WebSocketProxySettings? {
        guard let endpoint = proxy.endpoint else { return nil }
        let host = address.split(separator: "/").dropFirst().first.map { String($0.split(separator: ":").first ?? "") } ?? ""
        guard !proxy.bypasses(host: host) else { return nil }
        if endpoint.scheme.hasPrefix("socks") { return WebSocketProxySettings(host: endpoint.host, port: endpoint.port, type: .socks) }
        var headers = HTTPFields()
        if let (user, password) = proxy.credentials {
            headers[.proxyAuthorization] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        return WebSocketProxySettings(host: endpoint.host, port: endpoint.port, type: .http(connectHeaders: headers))
    }
}
