import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The local control socket: one JSON request line per connection, answered by one response line
/// or, for streams, by event lines until the client hangs up. The socket is mode 0600 inside an
/// owner-only directory, so only the owner can drive the daemon.
package final class ControlServer: @unchecked Sendable {
    package let path: String
    package let logger: Logger
    package let handler: any ControlHandler
    /// Masks known secrets in an error's message before it leaves the daemon.
    package let redact: @Sendable (String) -> String
    private var listenFD: Int32 = -1
    private let lock = ThreadLock()
    private var stopped = false

    package init(path: String, logger: Logger, handler: any ControlHandler, redact: @escaping @Sendable (String) -> String) {
        self.path = path
        self.logger = logger
        self.handler = handler
        self.redact = redact
    }

    package struct BindError: Error, CustomStringConvertible { package let description: String }

    package func start() throws {
        if ControlClient.isAlive(path) {
            throw BindError(description: "another pi-relayd is already listening on \(path)")
        }
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BindError(description: "socket(): \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw BindError(description: "socket path too long (\(bytes.count) bytes): \(path); use a shorter PI_RELAYD_HOME")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        // Created owner-only from the start: no window where others could connect.
        let old = umask(0o077)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard rc == 0 else {
            close(fd)
            throw BindError(description: "cannot bind \(path): \(String(cString: strerror(errno)))")
        }
        chmod(path, 0o600)
        guard listen(fd, 64) == 0 else {
            close(fd)
            throw BindError(description: "listen(): \(String(cString: strerror(errno)))")
        }
        listenFD = fd
        DedicatedThread.start("control-accept") { [self] in acceptLoop(fd) }
    }

    package func stop() {
        lock.lock()
        stopped = true
        let fd = listenFD
        listenFD = -1
        lock.unlock()
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
        unlink(path)
    }

    private func acceptLoop(_ fd: Int32) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                lock.lock(); let done = stopped; lock.unlock()
                if done { return }
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let handler = handler
            let logger = logger
            let redact = redact
            // Unstructured on purpose: each client connection lives independently of the others.
            Task { await Self.serve(client, handler: handler, logger: logger, redact: redact) }
        }
    }

    private static func serve(_ fd: Int32, handler: any ControlHandler, logger: Logger, redact: @escaping @Sendable (String) -> String) async {
        let writer = FDWriter(fd: fd)
        let stream = ControlStream(writer: writer, peer: PeerCredentials(socket: fd))
        var lines = FDLineReader.lines(fd: fd, maxLineBytes: 16 << 20).makeAsyncIterator()
        let first = await lines.next()
        if case .oversized(let bytes)? = first {
            writer.send(
                Self.line([
                    "id": .null, "error": ["code": "invalid_params", "message": .string("bad request: \(bytes) bytes, over the 16 MiB line cap")],
                ]))
        }
        // Reads on to the end of input: the client hanging up ends a stream. Lines after the
        // request go to `incoming` (an attached terminal session talks both ways); others ignore them.
        let watcher = Task {
            while let event = await lines.next() {
                switch event {
                case .line(let bytes): stream.received(bytes)
                // Never silently: an attached pi's event that big is lost (the extension keeps
                // its lines under the cap, so this is a client that does not).
                case .oversized(let bytes): logger.warning("control socket: skipped a \(bytes)-byte line (over the 16 MiB line cap)")
                default: break
                }
            }
            stream.close()
        }
        if case .line(let bytes)? = first {
            await answer(bytes, writer: writer, stream: stream, handler: handler, redact: redact)
        }
        writer.finish()
        await writer.drained(timeout: 5)
        // The reader thread may be between two reads of this fd. shutdown ends its reading, and
        // the fd is closed only once it has stopped: were the number reused by the next client
        // first, the old thread would swallow that client's request and leave it hanging.
        shutdown(fd, Int32(SHUT_RDWR))
        await watcher.value
        close(fd)
    }

    private static func answer(
        _ bytes: [UInt8], writer: FDWriter, stream: ControlStream,
        handler: any ControlHandler, redact: @Sendable (String) -> String
    ) async {
        let line: JSONValue
        do { line = try JSONValue.parse(bytes: bytes) } catch {
            writer.send(Self.line(["id": .null, "error": ["code": "invalid_params", "message": .string("bad request: \(error)")]]))
            return
        }
        let id = line["id"] ?? .null
        do {
            let request = try ControlRequest(json: line)
            stream.requestID = id
            let result = try await handler.handle(request.method, params: request.params, stream: stream)
            if let result { writer.send(Self.line(["id": id, "result": result])) }
        } catch let error as RemoteError {
            writer.send(Self.line(["id": id, "error": ["code": .string(error.code.rawValue), "message": .string(redact(error.message))]]))
        } catch {
            writer.send(Self.line(["id": id, "error": ["code": "internal", "message": .string(redact("\(error)"))]]))
        }
    }

    package static func line(_ message: JSONValue) -> [UInt8] {
        var bytes = message.serializedBytes()
        bytes.append(0x0A)
        return bytes
    }
}

/// Answers control requests. Return nil after streaming (the stream carried the answer).
package protocol ControlHandler: Sendable {
    func handle(_ method: ControlMethod, params: JSONValue, stream: ControlStream) async throws -> JSONValue?
}

/// A live connection for methods that stream (`stream`, `logs -f`) or talk both ways (`attach`).
package final class ControlStream: @unchecked Sendable {
    private let writer: FDWriter
    /// Who is on the other end, as the kernel says (nil when it would not say).
    package let peer: PeerCredentials?
    /// The request's `id`, for a method that answers on the stream itself (`attach`).
    package var requestID: JSONValue = .null
    /// The lines the client sends after its request, until it hangs up.
    package let incoming: AsyncStream<[UInt8]>
    private let incomingSink: AsyncStream<[UInt8]>.Continuation
    private let lock = ThreadLock()
    private var closed = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package init(writer: FDWriter, peer: PeerCredentials? = nil) {
        self.writer = writer
        self.peer = peer
        (incoming, incomingSink) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
    }

    package func send(_ event: JSONValue) {
        writer.send(ControlServer.line(["event": event]))
    }

    /// Sends a line as it is (the attach link speaks pi's RPC, not `{"event": …}`).
    package func sendLine(_ message: JSONValue) {
        writer.send(ControlServer.line(message))
    }

    /// Sends bytes that already are one line, LF included.
    package func sendRaw(_ line: [UInt8]) {
        writer.send(line)
    }

    package func received(_ line: [UInt8]) {
        incomingSink.yield(line)
    }

    package var isClosed: Bool {
        lock.lock(); defer { lock.unlock() }
        return closed
    }

    package func close() {
        incomingSink.finish()
        lock.lock()
        closed = true
        let pending = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in pending { waiter.resume() }
    }

    /// Suspends until the client disconnects.
    package func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if closed { lock.unlock(); continuation.resume(); return }
            waiters.append(continuation)
            lock.unlock()
        }
    }
}
