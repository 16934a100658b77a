import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// One request on the control socket read asynchronously, for async CLI commands: its lines are
/// read on a thread of their own (`FDLineReader`), never on the cooperative pool.
package struct ControlConnection {
    /// What the daemon sent.
    package enum Message {
        /// One event of a streaming method.
        case event(JSONValue)
        /// The answer, which ends the request.
        case result(JSONValue)
    }

    private let fd: Int32
    private var lines: AsyncStream<LineFramer.Event>.Iterator

    /// Connects and sends the request.
    package init(path: String, method: ControlMethod, params: JSONValue) throws {
        let fd = try ControlClient.open(path)
        do {
            try ControlClient(path: path).send(fd, method, params)
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
        lines = FDLineReader.lines(fd: fd, maxLineBytes: 64 << 20).makeAsyncIterator()
    }

    /// The next message; nil once the daemon has closed the connection. An error answer throws.
    package mutating func next() async throws -> Message? {
        while let line = await lines.next() {
            guard case .line(let bytes) = line else { continue }
            let message = try JSONValue.parse(bytes: bytes)
            if let event = message["event"] { return .event(event) }
            return .result(try ControlClient.result(of: bytes))
        }
        return nil
    }

    /// Hangs up and waits for the reader thread to see it, then frees the descriptor.
    package mutating func close() async {
        shutdown(fd, Int32(SHUT_RDWR))
        while await lines.next() != nil {}
        Glibc.close(fd)
    }
}

extension ControlClient {
    /// A streaming request (`stream`), read asynchronously.
    package func open(_ method: ControlMethod, _ params: JSONValue) throws -> ControlConnection {
        try ControlConnection(path: path, method: method, params: params)
    }

    /// One request answered asynchronously: its result, or the daemon's error thrown.
    package func request(_ method: ControlMethod, _ params: JSONValue = [:]) async throws -> JSONValue {
        var connection = try open(method, params)
        let answer: ControlConnection.Message?
        do {
            answer = try await connection.next()
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
        guard case .result(let result)? = answer else {
            throw RemoteError(code: .internal, message: "pi-relayd closed the connection without answering")
        }
        return result
    }
}
