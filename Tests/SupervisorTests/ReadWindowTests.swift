import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor
@testable import SupervisorIO

/// A child that writes faster than its consumer handles: with a window, what the consumer has
/// not handled stays near the window's limit, the child waits on its pipe, and every line still
/// arrives, in order.
@Suite struct ReadWindowTests {
    /// Events queued for a consumer that takes its time, as a busy session's event loop does.
    final class SlowConsumer: @unchecked Sendable {
        private let lock = NSLock()
        private var queue: [ChildEvent] = []
        private var finished = false
        private(set) var peak = 0

        func add(_ event: ChildEvent, window: ReadWindow) {
            lock.lock()
            queue.append(event)
            peak = max(peak, window.pending)
            lock.unlock()
        }

        func take() -> ChildEvent?? {
            lock.lock()
            defer { lock.unlock() }
            if queue.isEmpty { return finished ? .some(nil) : nil }
            return .some(queue.removeFirst())
        }

        func finish() {
            lock.lock()
            finished = true
            lock.unlock()
        }

        var peakPending: Int {
            lock.lock()
            defer { lock.unlock() }
            return peak
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFloodWaitsForItsConsumerAndLosesNothing() async throws {
        let window = ReadWindow(limit: 256 << 10)
        let consumer = SlowConsumer()
        // 8 MiB in 8,192 lines of 1 KiB, numbered.
        let script = "i=0; while [ $i -lt 8192 ]; do printf '%05d %01018d\\n' $i 0; i=$((i+1)); done"
        let spec = ChildSpec(executable: "/bin/sh", arguments: ["-c", script], workingDirectory: NSTemporaryDirectory(), maxLineBytes: 1 << 20)
        let child = Task {
            let exit = await ChildProcess.run(
                spec, input: ChildInput(), events: ChildEventSink { consumer.add($0, window: window) }, window: window)
            consumer.finish()
            return exit
        }
        var numbers: [Int] = []
        while true {
            guard let next = consumer.take() else {
                try await Task.sleep(for: .milliseconds(1))
                continue
            }
            guard let event = next else { break }
            if case .stdout(.line(let bytes)) = event {
                numbers.append(Int(String(decoding: bytes.prefix(5), as: UTF8.self)) ?? -1)
                // Slower than the child: a bounded reader makes the child wait.
                if numbers.count % 64 == 0 { try await Task.sleep(for: .milliseconds(2)) }
            }
            window.handled(event)
        }
        #expect(await child.value == .exited(0))
        #expect(numbers == Array(0..<8192), "every line, in order")
        // One 64 KiB read may land after the window filled; a reader with no bound would have
        // queued most of the 8 MiB.
        #expect(consumer.peakPending < window.limit + (128 << 10), "peak \(consumer.peakPending) bytes not handled")
        #expect(window.pending == 0)
    }
}
