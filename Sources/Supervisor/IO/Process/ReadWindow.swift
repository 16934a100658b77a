import FoundationEssentials
import PiRelaySDK

/// How much a child may have said that its consumer has not handled yet.
///
/// The pipe thread reads as fast as a child writes; the consumer (a pi session's event loop)
/// may be slower, above all on a machine whose cores are busy. Without a bound, the lines in
/// between pile up in the event stream: a pi flooding its stdout on a loaded machine grew the
/// daemon by 200 MB (`BoundMemoryTests`). With a window, a reader whose consumer is `limit` bytes
/// behind stops reading; the pipe fills and the child waits in write(2), which is the
/// backpressure a pipe is for. Reading resumes once the consumer is down to half the limit.
package final class ReadWindow: @unchecked Sendable {
    package let limit: Int
    private let lock = ThreadLock()
    private var outstanding = 0
    private var parked: [PipeReader] = []

    package init(limit: Int) {
        self.limit = limit
    }

    /// What an event costs in the window: its bytes, plus a fixed part so that a flood of empty
    /// lines is bounded too.
    package static func cost(_ event: ChildEvent) -> Int {
        switch event {
        case .stdout(.line(let bytes)): return bytes.count + 64
        case .stdoutOversized(_, let prefix): return prefix.count + 64
        case .stderr(let line): return line.utf8.count + 64
        // Sent by the child's owner after the readers ended, never through the window.
        case .exited: return 0
        default: return 64
        }
    }

    /// Bytes sent to the consumer and not yet handled.
    package var pending: Int {
        lock.lock()
        defer { lock.unlock() }
        return outstanding
    }

    /// Pipe thread: how many bytes `reader` may read now, before the limit; 0 parks it until
    /// `handled` makes room and the poller is asked to drain it again.
    package func room(for reader: PipeReader) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard outstanding >= limit else { return limit - outstanding }
        if !parked.contains(where: { $0 === reader }) { parked.append(reader) }
        return 0
    }

    /// Pipe thread: `event` went to the consumer.
    package func sent(_ event: ChildEvent) {
        let cost = Self.cost(event)
        lock.lock()
        outstanding += cost
        lock.unlock()
    }

    /// Consumer: `event` has been handled.
    package func handled(_ event: ChildEvent) {
        let cost = Self.cost(event)
        lock.lock()
        outstanding = max(0, outstanding - cost)
        var resumed: [PipeReader] = []
        if !parked.isEmpty && outstanding <= limit / 2 {
            resumed = parked
            parked = []
        }
        lock.unlock()
        for reader in resumed { reader.resume() }
    }
}
