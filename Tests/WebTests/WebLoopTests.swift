import FoundationEssentials
import Synchronization
import Testing

@testable import WebPlugin

#if canImport(Glibc)
import Glibc
#endif

/// pi-relayd's input is read on the dashboard's event loop, the thread that writes the pages'
/// sockets, so a live view wakes one thread; a descriptor epoll cannot watch is read elsewhere.
@Suite struct WebLoopTests {
    /// What the reader heard: the bytes, whether each chunk came on the loop, and the end.
    final class Heard: Sendable {
        let state = Mutex((bytes: [UInt8](), offLoop: 0, ends: 0, otherwise: 0))
    }

    private func waitFor(_ done: @escaping @Sendable () -> Bool) async throws {
        for _ in 0..<500 where !done() { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test(.timeLimit(.minutes(1))) func aPipeIsReadOnTheLoopToItsEnd() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let heard = Heard()
        let loop = WebLoop.group.next()
        WebLoop.read(
            fd: fds[0], closingAtEnd: true,
            each: { chunk in
                heard.state.withLock {
                    $0.bytes += chunk; if !loop.inEventLoop { $0.offLoop += 1 }
                }
            },
            end: { heard.state.withLock { $0.ends += 1 } },
            otherwise: { heard.state.withLock { $0.otherwise += 1 } })
        let text = Array("{\"method\":\"chat.live\"}\n{\"method\":".utf8)
        #expect(write(fds[1], text, text.count) == text.count)
        close(fds[1])
        try await waitFor { heard.state.withLock { $0.ends > 0 } }
        let state = heard.state.withLock { $0 }
        #expect(state.bytes == text)
        #expect(state.offLoop == 0)
        #expect(state.ends == 1)
        #expect(state.otherwise == 0)
    }

    @Test(.timeLimit(.minutes(1))) func aRegularFileIsLeftToTheOtherReader() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("web-loop-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{}\n".utf8)))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let heard = Heard()
        WebLoop.read(
            fd: fd, closingAtEnd: false, each: { chunk in heard.state.withLock { $0.bytes += chunk } },
            end: { heard.state.withLock { $0.ends += 1 } }, otherwise: { heard.state.withLock { $0.otherwise += 1 } })
        try await waitFor { heard.state.withLock { $0.otherwise > 0 } }
        let state = heard.state.withLock { $0 }
        #expect(state.otherwise == 1)
        #expect(state.bytes.isEmpty && state.ends == 0)
        // Still open and ours: the other reader reads it from the start.
        var byte: UInt8 = 0
        #expect(read(fd, &byte, 1) == 1 && byte == UInt8(ascii: "{"))
    }
}
