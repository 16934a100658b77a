import Foundation
import Logging
import PiRelaySDK
import Testing

@testable import Supervisor
@testable import SupervisorIO

/// The control socket never holds a thread of Swift's cooperative pool on a client: one that
/// asked for a large answer and stopped reading (`pi-relayd sessions --json | less`, paused) is
/// waited for on a thread of its own. With one such client per core, a wait on the pool stalled
/// every actor in the daemon for 5 s.
///
/// One test at a time: the 17 MiB request kept both cores busy under ThreadSanitizer, and the
/// drain threads the other test times were not seen alive long enough.
@Suite(.serialized) struct ControlServerTests {
    struct LargeAnswer: ControlHandler {
        func handle(_ method: ControlMethod, params: JSONValue, stream: ControlStream) async throws -> JSONValue? {
            .string(String(repeating: "x", count: 4 << 20))
        }
    }

    @Test func clientsThatStopReadingHoldNoPoolThread() async throws {
        // As in the daemon: a client that hung up is a failed write, not the end of the process.
        signal(SIGPIPE, SIG_IGN)
        // Short: a socket's path must fit in sockaddr_un.
        let dir = "/tmp/control-" + String(UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = ControlServer(path: dir + "/c.sock", logger: Logger(label: "test"), handler: LargeAnswer(), redact: { $0 })
        try server.start()
        defer { server.stop() }
        var clients: [Int32] = []
        defer { for fd in clients { close(fd) } }
        // One more than the pool has threads: each would hold one for the drain's 5 s.
        for _ in 0...ProcessInfo.processInfo.activeProcessorCount {
            let fd = try #require(ControlClient.connect(server.path))
            let request = Array(#"{"id":1,"method":"status","params":{}}"#.utf8) + [0x0A]
            #expect(request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == request.count)
            clients.append(fd)
        }
        // Each waits on a thread of its own (named for it), not on one of the pool's: timing the
        // pool instead would time whatever else the test run keeps it busy with.
        // Seen over time, not all at once: each lives the drain's 5 s, and on a loaded machine the
        // first may end before the last begins. Only threads seen alive for a second on end
        // count: other tests in this process drain their plugins' pipes on threads of the same
        // name for milliseconds.
        var since: [String: ContinuousClock.Instant] = [:]
        var draining: Set<String> = []
        for _ in 0..<500 {
            let now = ContinuousClock.now
            let alive = Set(Self.threadNames().filter { $0.hasPrefix("fd-drain-") })
            since = since.filter { alive.contains($0.key) }
            for name in alive where since[name] == nil { since[name] = now }
            draining.formUnion(since.filter { now - $0.value >= .seconds(1) }.keys)
            if draining.count >= clients.count { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(draining.count >= clients.count, "\(draining)")
    }

    /// A request over the line cap is answered with why, not with silence (the client would
    /// hear the connection end and nothing else).
    @Test func aRequestOverTheLineCapIsAnsweredWithAnError() async throws {
        signal(SIGPIPE, SIG_IGN)
        let dir = "/tmp/control-" + String(UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = ControlServer(path: dir + "/c.sock", logger: Logger(label: "test"), handler: LargeAnswer(), redact: { $0 })
        try server.start()
        defer { server.stop() }
        let fd = try #require(ControlClient.connect(server.path))
        defer { close(fd) }
        let request =
            Array(#"{"id":1,"method":"status","params":{"pad":""#.utf8) + [UInt8](repeating: 0x61, count: 17 << 20) + Array(#""}}"#.utf8) + [0x0A]
        // Written from a thread of its own: the server answers before it has read all of it.
        let writer = Thread { _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        writer.start()
        // Read on a thread of its own too: a blocking read on the cooperative pool could hold the
        // very thread the server needs to answer.
        let answer: [UInt8] = await withCheckedContinuation { done in
            Thread.detachNewThread {
                var answer: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while !answer.contains(0x0A) {
                    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    answer += chunk[0..<count]
                }
                done.resume(returning: answer)
            }
        }
        let line = try JSONValue.parse(bytes: Array(answer.prefix { $0 != 0x0A }))
        #expect(line["error"]?["code"] == "invalid_params" && line["error"]?["message"]?.stringValue?.contains("16 MiB") == true, "\(line)")
    }

    /// The names of this process's threads.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
