import Foundation
import PiRelaySDK
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An open dashboard page's WebSocket, written for the tests alone over a plain socket so that
/// it sends exactly what a browser sends (one Origin, the Host with its port, the cookie): every
/// message it got is kept for the test to wait on. Its reads block a thread of its own.
final class WebPage: Sendable {
    private final class Log: Sendable {
        let received = Mutex<[JSONValue]>([])
        let ended = Mutex<String?>(nil)
        let socket = Mutex<Int32>(-1)
    }

    private let log = Log()

    var messages: [JSONValue] { log.received.withLock { $0 } }
    /// How the socket ended: `HTTP 403` for a refused upgrade, `closed`, or an error.
    var ended: String? { log.ended.withLock { $0 } }

    /// Connects to `/ws` with `cookie` and `origin` (the page's own by default).
    init(base: String, cookie: String?, origin: String? = nil) {
        let port = Int(base.split(separator: ":").last ?? "") ?? 0
        var head = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: \(origin ?? base)\r\n"
        if let cookie { head += "Cookie: \(cookie)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8)
        let log = log
        let thread = Thread {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            log.socket.withLock { $0 = fd }
            guard LoopbackHTTP.connect(fd, port: port), Self.write(fd, request) else { return log.ended.withLock { $0 = "cannot connect" } }
            var buffer: [UInt8] = []
            while !buffer.ends(with: "\r\n\r\n") {
                guard let byte = Self.read(fd, 1)?.first else { return log.ended.withLock { $0 = "closed during the upgrade" } }
                buffer.append(byte)
            }
            let status = String(decoding: buffer, as: UTF8.self).split(separator: " ").dropFirst().first.map(String.init) ?? "?"
            guard status == "101" else { return log.ended.withLock { $0 = "HTTP \(status)" } }
            while true {
                guard let header = Self.read(fd, 2) else { break }
                var length = Int(header[1] & 0x7f)
                if length == 126, let more = Self.read(fd, 2) { length = Int(more[0]) << 8 | Int(more[1]) }
                if length == 127, let more = Self.read(fd, 8) { length = more.reduce(0) { $0 << 8 | Int($1) } }
                guard let payload = Self.read(fd, length) else { break }
                let opcode = header[0] & 0x0f
                if opcode == 8 { break }
                if opcode == 1, let value = try? JSONValue.parse(bytes: payload) { log.received.withLock { $0.append(value) } }
            }
            log.ended.withLock { $0 = "closed" }
        }
        thread.start()
    }

    func send(_ message: JSONValue) { send(text: message.serializedBytes()) }

    /// Sends a text frame, masked as a client must.
    func send(text payload: [UInt8]) {
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        }
        let mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        let fd = log.socket.withLock { $0 }
        _ = Self.write(fd, frame)
    }

    /// Waits for a message that `matches`, and returns it.
    @discardableResult
    func wait(_ what: String, timeout: Duration = .seconds(30), _ matches: @escaping @Sendable (JSONValue) -> Bool) async throws -> JSONValue {
        do {
            return try await waitFor(what, timeout: timeout) { [log] in log.received.withLock { $0.first(where: matches) } }
        } catch {
            throw WaitTimeout(what: what, timeout: timeout, lastError: ended, lastSeen: "\(messages.suffix(5))")
        }
    }

    func close() {
        let fd = log.socket.withLock { $0 }
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { close() }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    private static func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(1, count))
        while out.count < count {
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count - out.count, 0) }
            guard got > 0 else { return nil }
            out += chunk[0..<got]
        }
        return out
    }
}

extension [UInt8] {
    fileprivate func ends(with text: String) -> Bool { count >= text.utf8.count && suffix(text.utf8.count).elementsEqual(text.utf8) }
}
