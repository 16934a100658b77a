import NIOCore
import NIOPosix
import NIOSSL

/// One signed-in connection to PostgreSQL, over a Unix socket or TCP (with TLS as the URL's
/// `sslmode` says). Statements run one after another in the order they are asked; a task
/// cancelled while it waits closes the connection, since its answer could no longer be told
/// from the next statement's.
public final class DatabaseConnection: Sendable {
    let channel: any Channel
    let end: ConnectionEnd

    private init(channel: any Channel, end: ConnectionEnd) {
        self.channel = channel
        self.end = end
    }

    public var isOpen: Bool { channel.isActive }

    /// Connects and signs in. Notifications for the channels this connection will `LISTEN` on
    /// go to `notified`, by channel name; it finishes when the connection ends. `signInWithin`:
    /// how long the TLS answer, the handshake and signing in may take together.
    public static func connect(
        to address: DatabaseAddress, notified: AsyncStream<String>.Continuation? = nil, signInWithin: TimeAmount = .seconds(10)
    ) async throws(WireError) -> DatabaseConnection {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let negotiated = loop.makePromise(of: Void.self)
        let end = ConnectionEnd()
        let tls: NIOSSLContext?
        do { tls = try address.tlsContext() } catch { throw .connection("TLS settings: \(error)") }
        // A name to check the certificate against; an address is checked against the
        // certificate's IP entries instead (TLS sends no address as a server name).
        let hostname = address.host.flatMap { Self.isAddress($0) ? nil : $0 }
        var bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(TLSNegotiation(context: tls, serverHostname: hostname, negotiated: negotiated, end: end)) }
                    try pipeline.addHandler(ByteToMessageHandler(BackendDecoder()))
                    try pipeline.addHandler(WireHandler(notified: notified, end: end))
                }
            }
        let channel: any Channel
        do {
            if let path = address.socketPath {
                channel = try await bootstrap.connect(unixDomainSocketPath: path).get()
            } else {
                // A peer that vanishes (a cut network) is found by the kernel, not by waiting forever.
                bootstrap = bootstrap.channelOption(.socketOption(.so_keepalive), value: 1)
                channel = try await bootstrap.connect(host: address.host ?? "localhost", port: address.port).get()
            }
        } catch {
            negotiated.fail(WireError.connection("not connected"))
            notified?.finish()
            throw .connection(String(describing: error))
        }
        if tls == nil { negotiated.succeed() }
        let connection = DatabaseConnection(channel: channel, end: end)
        // A peer that takes the connection and then says nothing (no TLS answer, no handshake,
        // no sign-in) must not hold its caller: the LISTEN connection has no other limit.
        let silence = channel.eventLoop.scheduleTask(in: signInWithin) {
            end.record(.connection("the database did not finish signing in within \(signInWithin.nanoseconds / 1_000_000) ms"))
            channel.close(promise: nil)
        }
        defer { silence.cancel() }
        do {
            try await connection.wait(for: negotiated.futureResult)
            _ = try await connection.send(.startup(user: address.user, password: address.password, database: address.database))
        } catch {
            channel.close(promise: nil)
            throw end.current ?? error
        }
        return connection
    }

    /// Runs one statement; its rows.
    @discardableResult
    public func query(_ sql: SQL) async throws(WireError) -> [DatabaseRow] {
        try await send(.query(sql))
    }

    /// Closes the connection (politely: the server ends its backend at once).
    public func close() async {
        guard channel.isActive else { return }
        var buffer = channel.allocator.buffer(capacity: 5)
        FrontendMessage.terminate(into: &buffer)
        // The terminate goes below the handler that speaks in requests, straight to the socket.
        try? await channel.pipeline.context(handlerType: ByteToMessageHandler<BackendDecoder>.self).flatMap { context in
            context.writeAndFlush(NIOAny(buffer))
        }.get()
        try? await channel.close()
    }

    private func send(_ kind: WireRequest.Kind) async throws(WireError) -> [DatabaseRow] {
        let promise = channel.eventLoop.makePromise(of: [DatabaseRow].self)
        // On a closed channel the request never reaches the handler: the write's failure is
        // the answer then.
        let end = end
        channel.writeAndFlush(WireRequest(kind: kind, promise: promise)).whenFailure { _ in
            promise.fail(end.current ?? .connection("the connection to the database is closed"))
        }
        return try await wait(for: promise.futureResult)
    }

    private func wait<T: Sendable>(for future: EventLoopFuture<T>) async throws(WireError) -> T {
        let channel = channel
        do {
            return try await withTaskCancellationHandler {
                try await future.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch let error as WireError {
            throw error
        } catch {
            throw .connection(String(describing: error))
        }
    }

    private static func isAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}
