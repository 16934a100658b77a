import NIOCore

/// One connection's conversation with the server, on its event loop: it signs in, sends each
/// statement, and answers each with the rows that came before the server's ReadyForQuery, in
/// the order they were asked. Notifications go to `notified`. An error that ends the
/// connection fails every statement still waiting.
final class WireHandler: ChannelDuplexHandler {
    typealias InboundIn = BackendMessage
    typealias OutboundIn = WireRequest
    typealias OutboundOut = ByteBuffer

    private var waiting: [WireRequest] = []
    private var rows: [DatabaseRow] = []
    private var refused: WireError?
    private var signIn: SignIn?
    private let notified: AsyncStream<String>.Continuation?
    private let end: ConnectionEnd

    init(notified: AsyncStream<String>.Continuation?, end: ConnectionEnd) {
        self.notified = notified
        self.end = end
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let ended = end.current {
            request.promise.fail(ended)
            promise?.fail(ended)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: 256)
        switch request.kind {
        case .startup(let user, let password, let database):
            signIn = SignIn(user: user, password: password)
            FrontendMessage.startup(user: user, database: database, into: &buffer)
        case .query(let sql):
            FrontendMessage.query(sql, into: &buffer)
        }
        waiting.append(request)
        // Taken: from here on the request's own promise carries the outcome, and the reason a
        // connection ends (a certificate refused, say) reaches it through errorCaught, not as
        // the bare failure of a write on a channel that has since closed.
        context.write(wrapOutboundOut(buffer), promise: nil)
        promise?.succeed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        do {
            try take(unwrapInboundIn(data), context: context)
        } catch {
            finish(error, context: context)
        }
    }

    private func take(_ message: BackendMessage, context: ChannelHandlerContext) throws(WireError) {
        switch message {
        case .dataRow(let columns):
            rows.append(DatabaseRow(columns))
        case .readyForQuery:
            guard !waiting.isEmpty else { throw .protocolViolation("ReadyForQuery with nothing asked") }
            let request = waiting.removeFirst()
            if case .startup = request.kind, refused == nil, signIn?.isSignedIn != true {
                throw .protocolViolation("ready before signing in")
            }
            if let refused { request.promise.fail(refused) } else { request.promise.succeed(rows) }
            rows = []
            refused = nil
        case .error(let fields):
            let message = fields[UInt8(ascii: "M")] ?? "an error without a message"
            let state = fields[UInt8(ascii: "C")]
            // FATAL and PANIC end the connection (a refused sign-in among them); no
            // ReadyForQuery follows.
            if let severity = fields[UInt8(ascii: "V")] ?? fields[UInt8(ascii: "S")], severity == "FATAL" || severity == "PANIC" {
                throw .fatal(message: message, sqlState: state)
            }
            refused = .server(message: message, sqlState: state)
        case .notification(let channel, _):
            notified?.yield(channel)
        case .ignored:
            break
        case .authenticationOK, .cleartextPasswordWanted, .md5PasswordWanted, .saslMechanisms, .saslContinue, .saslFinal:
            guard var steps = signIn else { throw .protocolViolation("an authentication message before the startup") }
            let answer = try steps.take(message)
            signIn = steps
            switch answer {
            case .password(let text)?: send(context: context) { FrontendMessage.password(text, into: &$0) }
            case .saslInitial(let mechanism, let data)?:
                send(context: context) { FrontendMessage.saslInitial(mechanism: mechanism, data: data, into: &$0) }
            case .saslResponse(let data)?: send(context: context) { FrontendMessage.saslResponse(data, into: &$0) }
            case nil: break
            }
        }
    }

    private func send(context: ChannelHandlerContext, _ write: (inout ByteBuffer) -> Void) {
        var buffer = context.channel.allocator.buffer(capacity: 128)
        write(&buffer)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(error, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.connection("the database closed the connection"))
        notified?.finish()
        context.fireChannelInactive()
    }

    private func finish(_ error: any Error, context: ChannelHandlerContext) {
        fail(error as? WireError ?? .connection(String(describing: error)))
        context.close(promise: nil)
    }

    private func fail(_ error: WireError) {
        end.record(error)
        let reason = end.current ?? error
        let failed = waiting
        waiting = []
        for request in failed { request.promise.fail(reason) }
    }
}
