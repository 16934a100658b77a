import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The CLI's side of the control socket. The CLI is a short-lived process, so it uses plain
/// blocking calls.
package struct ControlClient {
    package let path: String
    /// How long a call may wait on the daemon before failing; nil waits as long as it takes
    /// (a `stream` or `stop`). Shell completion sets one: a hung daemon must not hang the shell.
    package var timeout: Duration? = nil

    package init(path: String, timeout: Duration? = nil) {
        self.path = path
        self.timeout = timeout
    }

    package struct NotRunning: Error, CustomStringConvertible {
        package let path: String
        package var description: String { "pi-relayd is not running (no daemon listening on \(path)). Start it with: pi-relayd start" }
    }

    /// The control socket is not one the CLI may trust (`SocketTrust`): it is not talked to.
    package struct Untrusted: Error, CustomStringConvertible {
        package let path: String
        package let problem: String
        package var description: String {
            "not talking to \(path): \(problem). Whoever controls it would read what this command sends and answer for pi-relayd. Use a home only you own (PI_RELAYD_HOME)."
        }
    }

    /// A connection to the daemon's socket at `path`, once the socket and its folder are found to
    /// be the user's own.
    package static func open(_ path: String) throws -> Int32 {
        if let problem = SocketTrust.problem(socket: path) { throw Untrusted(path: path, problem: problem) }
        guard let fd = connect(path) else { throw NotRunning(path: path) }
        return fd
    }

    package static func connect(_ path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { close(fd); return nil }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 { close(fd); return nil }
        return fd
    }

    /// Reads and writes on `fd` fail after `limit` instead of blocking on.
    package static func limitWaits(_ fd: Int32, to limit: Duration) {
        let (seconds, attoseconds) = limit.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    package static func isAlive(_ path: String) -> Bool {
        guard let fd = connect(path) else { return false }
        close(fd)
        return true
    }

    /// Sends one request and returns its result, throwing the daemon's error.
    /// `whileWaiting` is called about ten times a second until the answer comes (a progress line).
    package func call(_ method: ControlMethod, _ params: JSONValue = [:], whileWaiting: (() -> Void)? = nil) throws -> JSONValue {
        let fd = try Self.open(path)
        defer { close(fd) }
        if let timeout { Self.limitWaits(fd, to: timeout) }
        try send(fd, method, params)
        var reader = BlockingLineReader(fd: fd, idle: whileWaiting)
        guard let line = reader.next() else {
            throw RemoteError(code: .internal, message: "pi-relayd closed the connection without answering")
        }
        return try Self.result(of: line)
    }

    /// Sends a streaming request and calls `onEvent` for each event until the daemon ends the
    /// stream or `onEvent` returns false.
    package func stream(_ method: ControlMethod, _ params: JSONValue, onEvent: (JSONValue) -> Bool) throws {
        let fd = try Self.open(path)
        defer { close(fd) }
        try send(fd, method, params)
        var reader = BlockingLineReader(fd: fd)
        while let line = reader.next() {
            let message = try JSONValue.parse(bytes: line)
            if let event = message["event"] {
                if !onEvent(event) { return }
            } else {
                _ = try Self.result(of: line)
                return
            }
        }
    }

    package func send(_ fd: Int32, _ method: ControlMethod, _ params: JSONValue) throws {
        try write(fd, ControlRequest(method: method, params: params).json)
    }

    /// Writes one line on the connection.
    package func write(_ fd: Int32, _ message: JSONValue) throws {
        var bytes = message.serializedBytes()
        bytes.append(0x0A)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw NotRunning(path: path) }
    }

    package static func result(of line: [UInt8]) throws -> JSONValue {
        let response = try JSONValue.parse(bytes: line)
        if let error = response["error"], !error.isNull {
            throw RemoteError(code: ErrorCode(rawValue: error["code"]?.stringValue ?? "internal"), message: error["message"]?.stringValue ?? "")
        }
        return response["result"] ?? .null
    }
}

/// LF-framed lines from a blocking fd (CLI only).
package struct BlockingLineReader {
    package let fd: Int32
    /// Called every `idleInterval` milliseconds while nothing arrives.
    package let idle: (() -> Void)?
    package static let idleInterval: Int32 = 100
    private var framer = LineFramer(maxLineBytes: 64 << 20)
    private var ready: [[UInt8]] = []
    private var eof = false

    package init(fd: Int32, idle: (() -> Void)? = nil) {
        self.fd = fd
        self.idle = idle
    }

    package mutating func next() -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: 65536)
        while ready.isEmpty && !eof {
            if let idle {
                var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&waiting, 1, Self.idleInterval) == 0 {
                    idle()
                    continue
                }
            }
            let bytesRead = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if bytesRead < 0 && errno == EINTR { continue }
            if bytesRead <= 0 { eof = true; break }
            var got: [[UInt8]] = []
            buf.withUnsafeBytes { raw in
                framer.feed(UnsafeRawBufferPointer(rebasing: raw[0..<bytesRead])) { if case .line(let line) = $0 { got.append(line) } }
            }
            ready.append(contentsOf: got)
        }
        return ready.isEmpty ? nil : ready.removeFirst()
    }
}
