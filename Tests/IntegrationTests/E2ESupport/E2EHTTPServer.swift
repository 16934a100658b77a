import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 serving attachment downloads to the attachments plugin,
/// including broken answers (stalls, dropped connections). One thread per connection: the tests
/// make a handful of requests, and blocking sockets keep it simple.
final class E2EHTTPServer: Sendable {
    let port: Int
    private let listener: Int32
    private let routes: [String: E2EHTTPRoute]
    private let hits = Mutex<[String: Int]>([:])
    private let stopped = Atomic<Bool>(false)

    init(routes: [String: E2EHTTPRoute]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw E2EFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw E2EFailure("cannot listen on 127.0.0.1: \(why)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        self.routes = routes
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// How many requests for `path` have arrived so far.
    func hitCount(_ path: String) -> Int { hits.withLock { $0[path] ?? 0 } }

    /// Stops accepting and ends stalled answers. Connections already being served finish.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        // shutdown() wakes the thread blocked in accept(); close() alone would not on Linux.
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in
                serve(client)
                close(client)
            }
        }
    }

    private func serve(_ fd: Int32) {
        guard let path = requestPath(fd) else { return }
        hits.withLock { $0[path, default: 0] += 1 }
        switch routes[path] ?? .status(404) {
        case .file(let body, let type):
            _ = send(fd, head(200, type: type, length: body.count) + body)
        case .slow(let body, let type, let duration):
            guard send(fd, head(200, type: type, length: body.count)) else { return }
            let pieces = 10
            let step = (body.count + pieces - 1) / pieces
            for start in stride(from: 0, to: body.count, by: max(1, step)) {
                pause(duration / pieces)
                guard !stopped.load(ordering: .relaxed),
                    send(fd, Array(body[start..<min(body.count, start + step)]))
                else { return }
            }
        case .status(let code):
            let body = Array("status \(code)\n".utf8)
            _ = send(fd, head(code, type: "text/plain", length: body.count) + body)
        case .stall(let length):
            guard send(fd, head(200, type: "application/octet-stream", length: length)) else { return }
            let until = ContinuousClock.now + .seconds(120)
            while !stopped.load(ordering: .relaxed), ContinuousClock.now < until { pause(.milliseconds(50)) }
        case .drop(let body, let length):
            _ = send(fd, head(200, type: "application/octet-stream", length: length) + body)
        }
    }

    private func pause(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Reads the request head and returns its path without the query.
    private func requestPath(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = Array("\r\n\r\n".utf8)
        while data.count < 65536 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            data += buffer[0..<n]
            if data.count >= 4, data.indices.dropLast(3).contains(where: { Array(data[$0..<$0 + 4]) == end }) { break }
        }
        let line = String(decoding: data.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        return String(parts[1].split(separator: "?", maxSplits: 1).first ?? parts[1])
    }

    private func head(_ code: Int, type: String, length: Int) -> [UInt8] {
        let reason = code == 200 ? "OK" : code == 404 ? "Not Found" : "Status"
        return Array("HTTP/1.1 \(code) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n".utf8)
    }

    /// Writes everything; false when the client went away.
    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
}
