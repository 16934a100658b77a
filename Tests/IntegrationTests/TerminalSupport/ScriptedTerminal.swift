import Foundation
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's side of docs/EXTENSION.md, played by hand: a test double for the pi extension
/// of an interactive pi, written from the document (it shares no code with the daemon or the
/// extension). It connects to the control socket, attaches, and then answers the daemon's pi RPC
/// commands and writes pi events as a test scripts them.
final class ScriptedTerminal: @unchecked Sendable {
    struct Closed: Error, CustomStringConvertible {
        let description: String
    }

    let fd: Int32
    private let lock = NSLock()
    private var received: [JSONValue] = []
    private var ended = false

    init(socket path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Closed(description: "cannot connect to \(path): \(String(cString: strerror(errno)))")
        }
        // A thread of its own: the test's tasks never block on the socket.
        let reader = Thread { [self] in readLoop() }
        reader.start()
    }

    private func readLoop() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if let message = try? JSONValue.parse(bytes: line) {
                    lock.lock(); received.append(message); lock.unlock()
                }
            }
        }
        lock.lock(); ended = true; lock.unlock()
    }

    func send(_ message: JSONValue) {
        var line = message.serializedBytes()
        line.append(0x0A)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Hangs up, as a closed pi does (no goodbye).
    func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    var hasEnded: Bool {
        lock.lock(); defer { lock.unlock() }
        return ended
    }

    /// Takes the first line from the daemon that `match` accepts, waiting for it.
    func next(_ what: String, timeout: Duration = .seconds(30), where match: @escaping (JSONValue) -> Bool) async throws -> JSONValue {
        try await waitFor(what, timeout: timeout, every: .milliseconds(20)) { self.take(match) }
    }

    private func take(_ match: (JSONValue) -> Bool) -> JSONValue? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = received.firstIndex(where: match) else { return nil }
        return received.remove(at: index)
    }

    /// The next command of `type` the daemon sent.
    func command(_ type: String, timeout: Duration = .seconds(30)) async throws -> JSONValue {
        try await next("a \(type) command", timeout: timeout) { $0["type"]?.stringValue == type }
    }

    /// Sends the attach request and returns the daemon's answer (its `result` or `error`).
    func attach(piSessionID: String, cwd: String, extra: JSONValue = [:]) async throws -> JSONValue {
        var params: JSONValue = [
            "piSessionID": .string(piSessionID), "cwd": .string(cwd), "pid": JSONValue(Int(getpid())), "piVersion": "0.58.3",
            "extensionVersion": "0.1.0", "interactive": true, "model": "anthropic/claude-sonnet-4-5", "thinkingLevel": "medium",
        ]
        if case .object(let fields) = extra { for (key, value) in fields { params[key] = value } }
        send(["id": "attach", "method": "attach", "params": params])
        return try await next("the attach answer") { $0["id"]?.stringValue == "attach" }
    }

    /// Answers a command as pi does.
    func respond(to command: JSONValue, success: Bool = true, data: JSONValue? = nil) {
        var response: JSONValue = ["type": "response", "id": command["id"] ?? .null, "command": command["type"] ?? .null, "success": .bool(success)]
        if let data { response["data"] = data }
        send(response)
    }

    /// One agent run answering `text`, in the shapes docs/EXTENSION.md says the extension sends
    /// (message_update with only its delta).
    func run(answer text: String, prompt: String) {
        let user: JSONValue = ["role": "user", "content": [["type": "text", "text": .string(prompt)]], "timestamp": 1]
        let assistant: JSONValue = [
            "role": "assistant", "content": [["type": "text", "text": .string(text)]], "stopReason": "stop", "timestamp": 2,
            "provider": "anthropic", "model": "claude-sonnet-4-5",
        ]
        send(["type": "agent_start"])
        send(["type": "turn_start"])
        send(["type": "message_start", "message": user])
        send(["type": "message_end", "message": user])
        send(["type": "message_start", "message": ["role": "assistant", "content": [], "timestamp": 2]])
        for word in text.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            let delta = (word.offset == 0 ? "" : " ") + word.element
            send(["type": "message_update", "assistantMessageEvent": ["type": "text_delta", "contentIndex": 0, "delta": .string(delta)]])
        }
        send(["type": "message_end", "message": assistant])
        send(["type": "turn_end", "message": assistant, "toolResults": []])
        send(["type": "agent_end", "messages": []])
    }
}
