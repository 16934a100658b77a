import FoundationEssentials
import PiRelaySDK

/// A child's events on their way from the pipe thread to their one consumer, taken in batches:
/// what the pipe thread read since the consumer last looked is handed over in one go, with at
/// most one wake-up. An `AsyncStream` element per pi line (its lock, a resume per element,
/// generic metadata lookups) was about a tenth of the daemon's CPU while 20 sessions streamed
/// (issue 12 k). Unbounded here: the producer's `ReadWindow` bounds it.
package final class ChildEventQueue: @unchecked Sendable {
    private let lock = ThreadLock()
    private var buffer: [ChildEvent] = []
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?

    package init() {}

    /// Producer: queues `event`; never blocks. Ignored once finished.
    package func append(_ event: ChildEvent) {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        buffer.append(event)
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume()
    }

    /// Producer: nothing more comes. The consumer still gets what is queued.
    package func finish() {
        lock.lock()
        finished = true
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume()
    }

    /// Consumer: every event queued since the last call, in order, waiting until there is one;
    /// nil once finished and empty.
    package func next() async -> [ChildEvent]? {
        while true {
            let (batch, ended) = take()
            if !batch.isEmpty { return batch }
            if ended { return nil }
            await withCheckedContinuation { park($0) }
        }
    }

    private func take() -> (batch: [ChildEvent], ended: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let batch = buffer
        if !batch.isEmpty { buffer.removeAll(keepingCapacity: true) }
        return (batch, finished)
    }

    /// Resumed by the next `append` or `finish`, or at once if one came meanwhile.
    private func park(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        if buffer.isEmpty && !finished {
            waiter = continuation
            lock.unlock()
        } else {
            lock.unlock()
            continuation.resume()
        }
    }
}
