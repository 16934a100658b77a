import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for download tests, with one thread per connection so a
/// stalled response does not hold up the others. Every test registers its own paths.
final class TestServer: Sendable {
    static let shared = TestServer()

    let port: UInt16
    private let listener: Int32
    private let routes = Mutex<[String: TestRoute]>([:])
    private let log = Mutex<[String]>([])

    private init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(listener >= 0, "socket failed")
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(bound == 0 && listen(listener, 64) == 0, "bind/listen failed")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) }
        }
        port = UInt16(bigEndian: addr.sin_port)
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "test-http-accept"
        thread.start()
    }

    /// Registers `route` under a fresh path and returns its full URL.
    func serve(_ route: TestRoute, name: String = "file") -> String {
        register("/\(UUID().uuidString)/\(name)", route)
    }

    /// Registers `route` under `path` (which starts with a slash) and returns its full URL.
    @discardableResult
    func register(_ path: String, _ route: TestRoute) -> String {
        routes.withLock { $0[path] = route }
        return url(path)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Request targets seen so far, as sent (an absolute URL means the client used us as a proxy).
    func requests(containing fragment: String) -> [String] {
        log.withLock { $0.filter { $0.contains(fragment) } }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 { if errno == EINTR { continue } else { return } }
            // accept4 is a GNU extension Glibc's module does not export; a spawned child must not
            // inherit connection sockets, so the flag is set right after.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let thread = Thread { [self] in
                handle(fd)
                close(fd)
            }
            thread.start()
        }
    }

    private func handle(_ fd: Int32) {
        guard let target = readRequestTarget(fd) else { return }
        log.withLock { $0.append(target) }
        // Absolute-form targets arrive when curl uses this server as its HTTP proxy.
        var path = target
        if path.hasPrefix("http://"), let slash = path.dropFirst(7).firstIndex(of: "/") { path = String(path[slash...]) }
        guard let route = routes.withLock({ $0[path] }) else {
            send(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found")
            return
        }
        switch route {
        case .body(let bytes, let type):
            send(fd, "HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n")
            send(fd, bytes)
        case .status(let code):
            send(fd, "HTTP/1.1 \(code) Status\r\nContent-Type: text/html\r\nContent-Length: 21\r\nConnection: close\r\n\r\n<h1>error page</h1>\r\n")
        case .redirect(let location):
            send(fd, "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        case .stall:
            send(fd, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n")
            send(fd, [0x89, 0x50, 0x4E, 0x47])
            waitForHangUp(fd, seconds: 30)
        case .shortBody(let declared, let sent):
            send(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(declared)\r\nConnection: close\r\n\r\n")
            send(fd, [UInt8](repeating: UInt8(ascii: "a"), count: sent))
        case .endlessChunked(let claimed):
            send(
                fd,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(claimed)\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            )
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: 0x10000) + Array("\r\n".utf8)
            var sent = 0
            while sent < 4096 && send(fd, chunk) { sent += 1 }
        case .droppedChunked:
            send(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
            send(fd, "1000\r\n" + String(repeating: "c", count: 100))
        case .endless:
            send(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
            let chunk = [UInt8](repeating: 0, count: 0x10000)
            var sent = 0
            while sent < 4096 && send(fd, chunk) { sent += 1 }
        }
    }

    private func readRequestTarget(_ fd: Int32) -> String? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 65536 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { return nil }
            head.append(contentsOf: buffer[0..<n])
            if head.count >= 4, head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) { break }
        }
        let firstLine = String(decoding: head.prefix(while: { $0 != 0x0D }), as: UTF8.self)
        let parts = firstLine.split(separator: " ")
        return parts.count >= 2 ? String(parts[1]) : nil
    }

    private func waitForHangUp(_ fd: Int32, seconds: Int) {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&pfd, 1, Int32(seconds * 1000))
    }

    @discardableResult
    private func send(_ fd: Int32, _ text: String) -> Bool { send(fd, Array(text.utf8)) }

    /// MSG_NOSIGNAL: the client hanging up mid-body must not raise SIGPIPE in the test process.
    @discardableResult
    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }
}
