import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Writes whole lines to a file descriptor from a dedicated thread, so a slow reader on the other
/// end never blocks Swift's cooperative thread pool.
///
/// With `direct`, the descriptor is made non-blocking and `send` writes right away from the
/// caller's thread when nothing is waiting; only what the other end cannot take now goes to the
/// thread. That takes a thread wake-up off every message in the common case, which is what a
/// busy machine stretches into latency. Only for a descriptor nobody else reads or writes
/// through: O_NONBLOCK belongs to the open file, not to this fd.
package final class FDWriter: @unchecked Sendable {
    private let fd: Int32
    private let direct: Bool
    private let cond = ThreadCondition()
    private var queue: [[UInt8]] = []
    private var finished = false
    private var failed = false
    /// A batch taken off the queue is still being written: `flush` must wait for it too, or its
    /// caller closes the fd (or exits) under the write and the last lines are lost.
    private var writing = false

    package init(fd: Int32, direct: Bool = false) {
        self.fd = fd
        self.direct = direct
        if direct { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        // The thread holds the writer until `finish()` lets the loop end, so queued lines are never
        // dropped because the last owner let go.
        DedicatedThread.start("fd-writer-\(fd)") { self.loop() }
    }

    package func send(_ bytes: [UInt8]) {
        cond.lock()
        if direct && queue.isEmpty && !writing && !finished && !failed {
            let (written, ok) = bytes.withUnsafeBytes { writeNow($0) }
            if !ok {
                failed = true
                cond.broadcast()
                cond.unlock()
                return
            }
            if written == bytes.count {
                cond.unlock()
                return
            }
            queue.append(Array(bytes[written...]))
            cond.broadcast()
            cond.unlock()
            return
        }
        if !finished && !failed { queue.append(bytes) }
        // broadcast, not signal: a thread waiting in `flush` must not take the wake-up meant for
        // the writer thread.
        cond.broadcast()
        cond.unlock()
    }

    /// Stops after everything queued so far is written (or the fd fails).
    package func finish() {
        cond.lock()
        finished = true
        cond.broadcast()
        cond.unlock()
    }

    /// Waits until the queue is empty (bounded by `timeout`).
    package func flush(timeout: TimeInterval = 5) {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock()
        while (!queue.isEmpty || writing) && !failed {
            if !cond.wait(until: deadline) { break }
        }
        cond.unlock()
    }

    /// `flush`, awaited: the wait happens on a thread of its own, so a client that stopped
    /// reading holds no thread of the cooperative pool for the whole timeout.
    package func drained(timeout: TimeInterval = 5) async {
        cond.lock()
        let idle = (queue.isEmpty && !writing) || failed
        cond.unlock()
        guard !idle else { return }
        await DedicatedThread.run("fd-drain-\(fd)") { self.flush(timeout: timeout) }
    }

    private func loop() {
        while true {
            cond.lock()
            while queue.isEmpty && !finished { cond.wait() }
            if queue.isEmpty && finished {
                cond.unlock()
                return
            }
            let batch = queue
            queue.removeAll()
            writing = true
            cond.unlock()
            for chunk in batch where !writeAll(chunk) {
                cond.lock()
                failed = true
                writing = false
                queue.removeAll()
                cond.broadcast()
                cond.unlock()
                return
            }
            cond.lock()
            writing = false
            cond.broadcast()
            cond.unlock()
        }
    }

    /// Writes what the descriptor takes without waiting: (bytes written, false if it failed).
    private func writeNow(_ buf: UnsafeRawBufferPointer) -> (Int, Bool) {
        var off = 0
        while off < buf.count {
            let written = write(fd, buf.baseAddress! + off, buf.count - off)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return (off, true) }
                return (off, false)
            }
            off += written
        }
        return (off, true)
    }

    /// Writes everything, on the writer thread: waits for room when the descriptor is non-blocking.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let (written, ok) = writeNow(UnsafeRawBufferPointer(rebasing: buf[off...]))
                guard ok else { return false }
                off += written
                if off < buf.count {
                    var pollDescriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&pollDescriptor, 1, -1)
                }
            }
            return true
        }
    }
}
