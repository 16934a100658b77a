import Dispatch
import FoundationEssentials
import Logging
import PiRelaySDK
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The Prometheus endpoint: `GET /metrics` over HTTP/1.1 on a loopback address, one request per
/// connection. Its own thread accepts and serves, one client at a time with short socket
/// timeouts (a scraper is one process asking every few seconds), and waits for the figures
/// there, so no pool thread ever blocks on the socket.
package final class MetricsServer: Sendable {
    package static let maxRequestBytes = 8192
    package static let socketTimeoutSeconds = 2

    package let address: MetricsAddress
    package let logger: Logger
    package let render: @Sendable () async -> [UInt8]
    private let listening = Mutex<Int32>(-1)

    package struct StartError: Error, CustomStringConvertible { package let description: String }

    package init(address: MetricsAddress, logger: Logger, render: @escaping @Sendable () async -> [UInt8]) {
        self.address = address
        self.logger = logger
        self.render = render
    }

    package func start() throws(StartError) {
        let domain = address.family == .ipv6 ? AF_INET6 : AF_INET
        let fd = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "metrics: socket(): \(String(cString: strerror(errno)))") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if address.family == .ipv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = in_port_t(UInt16(address.port).bigEndian)
            socketAddress.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = in_port_t(UInt16(address.port).bigEndian)
            inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
            bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw StartError(description: "metrics: cannot listen on \(address) (metrics.listen): \(why)")
        }
        listening.withLock { $0 = fd }
        DedicatedThread.start("metrics-accept") { [self] in acceptLoop(fd) }
    }

    package func stop() {
        let fd = listening.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        guard fd >= 0 else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private func acceptLoop(_ fd: Int32) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                if listening.withLock({ $0 }) < 0 { return }
                continue
            }
            var timeout = timeval(tv_sec: Self.socketTimeoutSeconds, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            serve(client)
            close(client)
        }
    }

    private func serve(_ client: Int32) {
        guard let head = Self.readHead(client) else { return }
        let requestLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            Self.sendAll(client, Self.response(status: "400 Bad Request", body: Array("bad request\n".utf8)))
            return
        }
        let method = parts[0]
        let path = parts[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard method == "GET" || method == "HEAD" else {
            Self.sendAll(
                client, Self.response(status: "405 Method Not Allowed", body: Array("only GET /metrics\n".utf8), extra: "Allow: GET, HEAD\r\n"))
            return
        }
        guard path == "/metrics" else {
            Self.sendAll(client, Self.response(status: "404 Not Found", body: Array("not found: the figures are at /metrics\n".utf8)))
            return
        }
        let body = waitForFigures()
        Self.sendAll(
            client,
            Self.response(status: "200 OK", body: body, contentType: "text/plain; version=0.0.4; charset=utf-8", headOnly: method == "HEAD"))
    }

    /// Waits on this thread (not a pool thread) for the figures the actors hold.
    private func waitForFigures() -> [UInt8] {
        let figures = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
        let render = render
        // Unstructured on purpose: this dedicated thread is outside Swift concurrency and waits for it.
        Task {
            let body = await render()
            figures.withLock { $0 = body }
            done.signal()
        }
        done.wait()
        return figures.withLock { $0 }
    }

    /// The request up to its blank line; nil when the client sent nothing usable in time. The
    /// whole head must come within `socketTimeoutSeconds` twice over: any local user can reach a
    /// loopback port, and a client trickling a byte at a time must not hold the listener.
    private static func readHead(_ client: Int32) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        let deadline = ContinuousClock.now + .seconds(2 * socketTimeoutSeconds)
        while bytes.count < maxRequestBytes, ContinuousClock.now < deadline {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            bytes.append(contentsOf: buffer[0..<count])
            if let text = String(validating: bytes, as: UTF8.self), text.contains("\r\n\r\n") { return text }
        }
        guard bytes.count >= maxRequestBytes else { return nil }
        sendAll(client, response(status: "431 Request Header Fields Too Large", body: Array("request too large\n".utf8)))
        return nil
    }

    package static func response(
        status: String, body: [UInt8], contentType: String = "text/plain; charset=utf-8", extra: String = "", headOnly: Bool = false
    ) -> [UInt8] {
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\(extra)Connection: close\r\n\r\n"
        return Array(head.utf8) + (headOnly ? [] : body)
    }

    private static func sendAll(_ client: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(client, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
