import NIOCore
import NIOSSL

/// PostgreSQL's way into TLS: the client asks (SSLRequest) on the plain connection, the server
/// answers one byte, and on `S` the TLS handshake starts on the same connection. Until
/// `negotiated` succeeds nothing else may be written: the startup message would go in clear.
final class TLSNegotiation: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let context: NIOSSLContext
    private let serverHostname: String?
    private let negotiated: EventLoopPromise<Void>
    /// Where the refusal's reason is kept: closing the connection reports a bare close after it.
    private let end: ConnectionEnd
    private var answered = false

    init(context: NIOSSLContext, serverHostname: String?, negotiated: EventLoopPromise<Void>, end: ConnectionEnd) {
        self.context = context
        self.serverHostname = serverHostname
        self.negotiated = negotiated
        self.end = end
    }

    func channelActive(context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: 8)
        FrontendMessage.sslRequest(into: &buffer)
        context.writeAndFlush(NIOAny(buffer), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard !answered, let answer = buffer.readInteger(as: UInt8.self) else { return }
        answered = true
        guard answer == UInt8(ascii: "S") else {
            refuse(WireError.connection("the database does not offer TLS, and the URL's sslmode requires it"), context: context)
            return
        }
        guard buffer.readableBytes == 0 else {
            // Bytes before the handshake would be read as if they came through TLS.
            refuse(WireError.protocolViolation("data after the server's TLS answer"), context: context)
            return
        }
        do {
            let tls = try NIOSSLClientHandler(context: self.context, serverHostname: serverHostname)
            try context.pipeline.syncOperations.addHandler(tls, position: .before(self))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            negotiated.succeed()
        } catch {
            refuse(error, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !answered {
            answered = true
            negotiated.fail(error)
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !answered {
            answered = true
            negotiated.fail(WireError.connection("the database closed the connection before TLS"))
        }
        context.fireChannelInactive()
    }

    private func refuse(_ error: any Error, context: ChannelHandlerContext) {
        end.record(error as? WireError ?? .connection(String(describing: error)))
        negotiated.fail(error)
        context.close(promise: nil)
    }
}
