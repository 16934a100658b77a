import NIOCore
import NIOPosix
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The dashboard's one event loop: the HTTP server and its pages' sockets, the control socket's
/// connections (`ControlReader`), and pi-relayd's input too (`WebRelay.readInput`). A live view read from pi-relayd is then written to its page by the
/// thread that read it, one wake-up a view rather than a reading thread's and the loop's (the
/// dashboard's CPU while runs stream, `make bench` web). One loop is plenty for a local dashboard:
/// the handlers' own work runs in tasks.
enum WebLoop {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Reads `fd` on the loop when it is a pipe or a socket; `otherwise` (a regular file, say, as
    /// a test may give, which epoll cannot watch) reads it another way.
    static func read(
        fd: Int32, closingAtEnd: Bool, each: @escaping @Sendable (UnsafeRawBufferPointer) -> Void, end: @escaping @Sendable () -> Void,
        otherwise: @escaping @Sendable () -> Void
    ) {
        var info = stat()
        let kind = fstat(fd, &info) == 0 ? info.st_mode & S_IFMT : 0
        // NIO closes what it reads at the end: a descriptor of its own, unless ours is to close.
        let owned = kind == S_IFIFO || kind == S_IFSOCK ? (closingAtEnd ? fd : dup(fd)) : -1
        guard owned >= 0 else { return otherwise() }
        NIOPipeBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(InputHandler(each: each, end: end)) }
            }
            .takingOwnershipOfDescriptor(input: owned)
            .whenFailure { _ in
                // Still ours when NIO refused it.
                if owned != fd { close(owned) }
                otherwise()
            }
    }

    /// Hands each chunk read to `each`, and the end of input (or a read error) to `end`, once.
    private final class InputHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        let each: @Sendable (UnsafeRawBufferPointer) -> Void
        let end: @Sendable () -> Void
        private var ended = false

        init(each: @escaping @Sendable (UnsafeRawBufferPointer) -> Void, end: @escaping @Sendable () -> Void) {
            self.each = each
            self.end = end
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            buffer.withUnsafeReadableBytes { each($0) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        private func finish() {
            guard !ended else { return }
            ended = true
            end()
        }
    }
}
