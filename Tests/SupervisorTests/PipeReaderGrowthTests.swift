import Foundation
import PiRelaySDK
import Synchronization
import Testing

@testable import SupervisorIO

/// The daemon's reader of a child's pipe: a writer that fills the pipe gets a 1 MiB one, every
/// byte still arrives in order, and once the writer goes quiet the pipe is back to 64 KiB.
@Suite struct PipeReaderGrowthTests {
    final class Heard: Sendable {
        private let state = Mutex((bytes: [UInt8](), largestCapacity: 0))
        func add(_ chunk: UnsafeRawBufferPointer, capacity: Int?) {
            state.withLock {
                $0.bytes.append(contentsOf: chunk)
                $0.largestCapacity = max($0.largestCapacity, capacity ?? 0)
            }
        }
        var count: Int { state.withLock { $0.bytes.count } }
        var bytes: [UInt8] { state.withLock { $0.bytes } }
        var largestCapacity: Int { state.withLock { $0.largestCapacity } }
    }

    @Test(.timeLimit(.minutes(1)))
    func aWriterThatFillsThePipeGetsAGrownOneUntilItGoesQuiet() async throws {
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        defer { close(writeEnd) }
        // 4 MiB, numbered so that order shows; the writer blocks on the full pipe before anyone
        // reads, so the first read finds it full.
        let burst = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 / 4099) }
        let writer = Thread {
            burst.withUnsafeBytes { raw in
                var at = 0
                while at < raw.count {
                    let wrote = write(writeEnd, raw.baseAddress! + at, min(64 << 10, raw.count - at))
                    if wrote > 0 {
                        at += wrote
                    } else if wrote < 0 && errno != EINTR {
                        break  // the read end is gone (the test failed or ended): stop, not spin
                    }
                }
            }
        }
        writer.start()
        while Self.pipeHeld(readEnd) < PipeGrowth.standard {
            try await Task.sleep(for: .milliseconds(5))
        }
        let heard = Heard()
        let reader = PipeReader(fd: readEnd, onData: { heard.add($0, capacity: PipeCapacity.of(readEnd)) }, onEnd: {})
        defer { reader.cancel() }
        try await Self.wait { heard.count == burst.count }
        #expect(heard.bytes == burst, "every byte, in order")
        #expect(heard.largestCapacity == PipeGrowth.grown, "the full pipe grew")

        let quiet = Array("quiet\n".utf8)
        _ = quiet.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
        try await Self.wait { heard.count == burst.count + quiet.count }
        #expect(PipeCapacity.of(writeEnd) == PipeGrowth.standard, "a read of a few bytes shrank it back")
    }

    /// Bytes waiting in the pipe (FIONREAD).
    static func pipeHeld(_ fd: Int32) -> Int {
        var held: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &held) == 0 ? Int(held) : 0
    }

    static func wait(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "timed out")
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
