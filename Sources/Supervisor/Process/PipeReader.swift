import CLinux
import Foundation
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Reads the parent's end of a child's stdout or stderr pipe as data arrives.
///
/// Every reader is served by one thread (`PipePoller`): edge-triggered epoll, one scratch buffer,
/// and `onData` called right there, so a line goes from the pipe to its consumer's stream in one
/// hop, and a quiet pipe costs no memory. (swift-subprocess's output sequences park a zero-filled
/// buffer of the pipe's size, 64 KiB, on every pipe between reads, 128 KiB per idle pi session,
/// and hop through a task per read.)
///
/// The reader ends at end of file, or, once told that the child has exited, as soon as the pipe
/// is empty: a grandchild that inherited the pipe must not keep it open forever. It then closes
/// the descriptor and calls `onEnd`. `onData` and `onEnd` run on the poller thread, in order, and
/// must not block; `onEnd` runs once.
final class PipeReader: @unchecked Sendable {
    let fd: Int32
    let onData: @Sendable (UnsafeRawBufferPointer) -> Void
    let onEnd: @Sendable () -> Void
    /// Poller thread only.
    fileprivate var ended = false
    fileprivate var childExited = false
    private let lock = NSLock()
    private var done = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Takes ownership of `fd` (closed when the reader ends) and starts reading it.
    init(fd: Int32, onData: @escaping @Sendable (UnsafeRawBufferPointer) -> Void, onEnd: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.onData = onData
        self.onEnd = onEnd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        PipePoller.shared.submit(.add(self))
    }

    /// Stops reading now; what is still in the pipe is dropped.
    func cancel() {
        PipePoller.shared.submit(.cancel(self))
    }

    /// Returns once the reader has ended.
    func waitForEnd() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            lock.lock()
            if done {
                lock.unlock()
                c.resume()
            } else {
                waiters.append(c)
                lock.unlock()
            }
        }
    }

    fileprivate func finished() {
        lock.lock()
        done = true
        let w = waiters
        waiters = []
        lock.unlock()
        for c in w { c.resume() }
    }
}

/// Watches a child's pidfd (Linux 5.3 and later): when the child exits it reaps it and lets its
/// readers end once their pipes are empty, even if a grandchild holds them open.
final class ExitWatch: @unchecked Sendable {
    fileprivate let fd: Int32
    fileprivate let readers: [PipeReader]
    let pid: pid_t
    /// Poller thread only.
    fileprivate var ended = false
    private let lock = NSLock()
    private var status: ChildExit?
    private var waiter: CheckedContinuation<ChildExit, Never>?

    /// Watches `pid` through its pidfd (taken over: closed when the watch ends). Without a pidfd
    /// (a kernel before 5.3) a thread of its own waits for the child.
    init(pid: pid_t, pidfd: Int32, readers: [PipeReader]) {
        self.pid = pid
        fd = pidfd
        self.readers = readers
        if fd >= 0 {
            PipePoller.shared.submit(.watch(self))
        } else {
            let thread = Thread { [self] in
                reaped(ChildSpawn.reap(pid, wait: true) ?? .spawnFailed("pid \(pid) vanished"))
                PipePoller.shared.submit(.exitedWithoutPidfd(self))
            }
            thread.name = "pi-relayd.wait"
            thread.start()
        }
    }

    /// Waits for the child's exit status.
    func exit() async -> ChildExit {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let status {
                lock.unlock()
                continuation.resume(returning: status)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }

    fileprivate func reaped(_ exit: ChildExit) {
        lock.lock()
        status = exit
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume(returning: exit)
    }
}

/// epoll(7), declared by <sys/epoll.h> through the CLinux module.
private enum Epoll {
    static let input = EPOLLIN.rawValue
    static let output = EPOLLOUT.rawValue
    static let readHangUp = EPOLLRDHUP.rawValue
    static let edgeTriggered = EPOLLET.rawValue

    /// Adds, changes or deletes the watch of `fd`, with `fd` as the event's data.
    static func control(_ epfd: Int32, _ op: Int32, _ fd: Int32, _ events: UInt32) -> Int32 {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        return epoll_ctl(epfd, op, fd, &event)
    }
}

/// The thread behind every `PipeReader` and `ExitWatch`, and behind every `ChildInput` with more
/// to write than its pipe took at once.
final class PipePoller: @unchecked Sendable {
    static let shared = PipePoller()

    enum Command {
        case add(PipeReader)
        case cancel(PipeReader)
        case watch(ExitWatch)
        /// The waiting thread reaped it: its readers may end once their pipes are empty.
        case exitedWithoutPidfd(ExitWatch)
        /// Write what `ChildInput` still holds as its pipe makes room.
        case flush(ChildInput)
    }

    private enum Entry {
        case reader(PipeReader)
        case watch(ExitWatch)
        case writer(ChildInput)
    }

    /// Bytes read from one pipe before the others get their turn.
    static let fairShare = 1 << 20
    static let chunkBytes = 1 << 16

    private let epfd: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let lock = NSLock()
    private var commands: [Command] = []
    private var wakePending = false
    // The rest is touched only on the poller thread.
    private var entries: [Int32: Entry] = [:]
    private var backlog: [PipeReader] = []
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: PipePoller.chunkBytes, alignment: 16)

    private init() {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fatalError("pi-relayd: cannot create the pipe poller's wake pipe: \(String(cString: strerror(errno)))") }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        guard epfd >= 0 else { fatalError("pi-relayd: epoll_create1 failed: \(String(cString: strerror(errno)))") }
        register(wakeRead, edge: false)
        let thread = Thread { [self] in loop() }
        thread.name = "pi-relayd.pipes"
        thread.start()
    }

    func submit(_ c: Command) {
        lock.lock()
        commands.append(c)
        let wake = !wakePending
        wakePending = true
        lock.unlock()
        if wake {
            var one: UInt8 = 1
            _ = write(wakeWrite, &one, 1)
        }
    }

    private func register(_ fd: Int32, edge: Bool) {
        _ = Epoll.control(epfd, EPOLL_CTL_ADD, fd, Epoll.input | Epoll.readHangUp | (edge ? Epoll.edgeTriggered : 0))
    }

    private func unregister(_ fd: Int32) {
        _ = Epoll.control(epfd, EPOLL_CTL_DEL, fd, 0)
        entries[fd] = nil
        close(fd)
    }

    private func loop() {
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        while true {
            let n = epoll_wait(epfd, events, Int32(capacity), backlog.isEmpty ? -1 : 0)
            if n < 0 && errno != EINTR { return }
            runCommands()
            for i in 0..<max(0, Int(n)) {
                let fd = events[i].data.fd
                switch entries[fd] {
                case .reader(let r)?: drain(r)
                case .watch(let w)?: exited(w)
                case .writer(let w)?: flush(w, fd: fd)
                case nil: continue
                }
            }
            if !backlog.isEmpty {
                let again = backlog
                backlog = []
                for r in again { drain(r) }
            }
        }
    }

    private func runCommands() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &sink, sink.count) > 0 {}
        lock.lock()
        let todo = commands
        commands = []
        wakePending = false
        lock.unlock()
        for c in todo {
            switch c {
            case .add(let r):
                entries[r.fd] = .reader(r)
                register(r.fd, edge: true)
                drain(r)
            case .cancel(let r):
                end(r)
            case .watch(let w):
                entries[w.fd] = .watch(w)
                register(w.fd, edge: false)
            case .exitedWithoutPidfd(let w):
                for r in w.readers where !r.ended {
                    r.childExited = true
                    drain(r)
                }
            case .flush(let w):
                let fd = w.descriptor
                guard fd >= 0 else { continue }
                if case .writer(let known)? = entries[fd], known === w {
                } else {
                    // Level-triggered: it fires while there is room, and we stop watching once
                    // everything is written.
                    entries[fd] = .writer(w)
                    _ = Epoll.control(epfd, EPOLL_CTL_ADD, fd, Epoll.output)
                }
                flush(w, fd: fd)
            }
        }
    }

    private func flush(_ w: ChildInput, fd: Int32) {
        _ = w.pollerFlush {
            _ = Epoll.control(epfd, EPOLL_CTL_DEL, fd, 0)
            entries[fd] = nil
        }
    }

    private func exited(_ w: ExitWatch) {
        guard !w.ended else { return }
        w.ended = true
        unregister(w.fd)
        // The pidfd fired: the child is a zombie now, so this does not wait.
        w.reaped(ChildSpawn.reap(w.pid, wait: true) ?? .spawnFailed("pid \(w.pid) vanished"))
        for r in w.readers where !r.ended {
            r.childExited = true
            drain(r)
        }
    }

    /// Reads until the pipe is empty (or its fair share is used up: it goes to the backlog).
    private func drain(_ r: PipeReader) {
        var budget = Self.fairShare
        while !r.ended {
            let n = read(r.fd, scratch.baseAddress, scratch.count)
            if n > 0 {
                r.onData(UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
                budget -= n
                if budget <= 0 {
                    backlog.append(r)
                    return
                }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !r.childExited { return }
            // End of file, an error, or a child that is gone and has nothing left for us.
            end(r)
        }
    }

    private func end(_ r: PipeReader) {
        guard !r.ended else { return }
        r.ended = true
        unregister(r.fd)
        r.onEnd()
        r.finished()
    }
}

/// A pipe for a child's stdout or stderr: the child gets `write` (we close our copy once it has
/// spawned), we keep `read`. Both are close-on-exec, and `ChildSpawn` also closes every
/// descriptor above 2 in the children it starts.
struct ChildPipe {
    let read: Int32
    let write: Int32

    static func make() -> ChildPipe? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return ChildPipe(read: fds[0], write: fds[1])
    }
}

/// A line framer owned by one reader's callbacks, which run one at a time on the poller thread.
final class FramerBox: @unchecked Sendable {
    var framer: LineFramer
    init(maxLineBytes: Int) { framer = LineFramer(maxLineBytes: maxLineBytes) }
}
