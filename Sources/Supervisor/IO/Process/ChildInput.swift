import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A child's stdin, written by whoever sends: `send` writes straight into the pipe with a
/// non-blocking write(2), from the caller's own thread. Only what the pipe cannot take now waits,
/// in order, for the `PipePoller` thread to flush it when the child reads. So a line to pi or to a
/// plugin costs no thread hop at all in the common case (it used to cross an `AsyncStream`, a
/// writer task and swift-subprocess's I/O thread: three wake-ups, each one a chance to wait for a
/// CPU on a busy machine), and no caller ever blocks on a pipe.
///
/// Lines sent before the child exists wait for `attach`. After `finish` (or once the child stops
/// reading for good) further sends are dropped: the child is going away.
package final class ChildInput: @unchecked Sendable {
    /// Bytes waiting past this for longer than a plugin's stall limit mark a child that stopped
    /// reading (`PluginSlot`'s hang check).
    package let highWater: Int
    private let lock = ThreadLock()
    private var fd: Int32 = -1
    private var queue: [UInt8] = []
    /// Bytes of `queue` already written.
    private var head = 0
    /// Since when more than `highWater` bytes have waited with none taken: a child that reads,
    /// however slowly, starts it again with every read.
    private var overSince: ContinuousClock.Instant?
    /// When the child last took bytes from the pipe.
    private var lastTaken: ContinuousClock.Instant?
    /// The poller is watching `fd` for room; only it writes `queue` then, and only it may close.
    private var flushing = false
    private var finishing = false
    /// The pipe is closed (or broken): nothing more goes in.
    private var closed = false

    package init(highWater: Int = 1 << 20) {
        self.highWater = highWater
        _ = Self.ignoreBrokenPipes
    }

    /// A child that exits with input still coming must cost a failed write (EPIPE), not this
    /// process: SIGPIPE's default action would kill the daemon or the CLI command writing to it.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Bytes sent but not yet taken by the pipe.
    package var pending: Int {
        lock.lock(); defer { lock.unlock() }
        return queue.count - head
    }

    /// How long more than `highWater` bytes have been waiting without the child taking any.
    package var overFor: Duration? {
        lock.lock(); defer { lock.unlock() }
        return overSince.map { .now - $0 }
    }

    /// Bytes wait and the child took some within `window`: what is sent now (a ping) waits its
    /// turn behind them, and is not a sign of a hang until the child stops taking.
    package func draining(within window: Duration) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard queue.count > head, let lastTaken else { return false }
        return .now - lastTaken < window
    }

    /// Queues `bytes` after everything sent before, writing as much as the pipe takes right now.
    package func send(_ bytes: [UInt8]) {
        lock.lock(); defer { lock.unlock() }
        guard !closed, !finishing else { return }
        if fd < 0 || flushing || head < queue.count {
            queue.append(contentsOf: bytes)
            noteLevel()
            return
        }
        let written = bytes.withUnsafeBytes { writeAll($0) }
        guard let written else { return }
        if written < bytes.count {
            queue.append(contentsOf: bytes[written...])
            head = 0
            noteLevel()
            watch()
        }
    }

    /// No more input: the child sees end of file once everything sent has been written.
    package func finish() {
        lock.lock(); defer { lock.unlock() }
        guard !closed, !finishing else { return }
        finishing = true
        if fd >= 0 && !flushing && head == queue.count { closeLocked() }
    }

    /// The pipe to the child is open: write what waited for it. Takes ownership of `fd`.
    package func attach(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        lock.lock(); defer { lock.unlock() }
        self.fd = fd
        if closed {
            closeLocked()
            return
        }
        if head < queue.count, let written = queue.withUnsafeBytes({ writeAll($0) }) {
            head += written
            if head < queue.count {
                noteLevel()
                watch()
                return
            }
        }
        reset()
        if finishing || closed { closeLocked() }
    }

    /// The child is gone: drop what is left and close the pipe (now, or once the poller lets go).
    package func detach() {
        lock.lock(); defer { lock.unlock() }
        finishing = true
        reset()
        if flushing {
            // The poller closes it; a full pipe nobody reads would never wake it, so poke it.
            PipePoller.shared.submit(.flush(self))
        } else {
            closeLocked()
        }
    }

    // MARK: Poller side

    /// The descriptor the poller watches while it flushes.
    package var descriptor: Int32 {
        lock.lock(); defer { lock.unlock() }
        return fd
    }

    /// Called on the poller thread when the pipe may have room. When everything is written (or
    /// the pipe broke) it calls `unregister`, before the descriptor can be closed, and returns
    /// false: the poller is done with it.
    package func pollerFlush(unregister: () -> Void) -> Bool {
        lock.lock(); defer { lock.unlock() }
        if !closed, head < queue.count, let written = queue.withUnsafeBytes({ writeAll(UnsafeRawBufferPointer(rebasing: $0[head...])) }) {
            head += written
            if written > 0 {
                lastTaken = .now
                overSince = nil
            }
        }
        if closed || head == queue.count {
            unregister()
            flushing = false
            reset()
            if closed || finishing { closeLocked() }
            return false
        }
        // Memory stays bounded by what is still waiting, not by everything ever queued.
        if head > 1 << 16 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        noteLevel()
        return true
    }

    // MARK: Locked

    /// Writes until the pipe is full and returns how much went in; nil if the pipe is broken
    /// (the child closed its stdin or exited), after which nothing more is written.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if written > 0 { done += written; continue }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return done }
            reset()
            if flushing { closed = true } else { closeLocked() }
            return nil
        }
        return done
    }

    /// Hands the rest to the poller, which writes it as the child makes room.
    private func watch() {
        guard !flushing, !closed else { return }
        flushing = true
        PipePoller.shared.submit(.flush(self))
    }

    private func reset() {
        queue = []
        head = 0
        overSince = nil
    }

    private func noteLevel() {
        if queue.count - head > highWater {
            if overSince == nil { overSince = .now }
        } else {
            overSince = nil
        }
    }

    /// Only when the poller is not watching the descriptor (it must unregister it first).
    private func closeLocked() {
        if fd >= 0 { close(fd) }
        fd = -1
        closed = true
    }
}
