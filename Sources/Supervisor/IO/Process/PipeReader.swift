import CLinux
import FoundationEssentials
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
package final class PipeReader: @unchecked Sendable {
    package let fd: Int32
    package let onData: @Sendable (UnsafeRawBufferPointer) -> Void
    package let onEnd: @Sendable () -> Void
    /// Bounds what the consumer has not handled yet; nil reads without a bound.
    package let window: ReadWindow?
    /// A stream that may be gathered for a few milliseconds when busy (pi's stdout): see
    /// `PollPacing`. Others (plugins' replies) are read the moment they arrive.
    package let paced: Bool
    /// Poller thread only.
    fileprivate var ended = false
    fileprivate var childExited = false
    /// The pipe's size (`PipeGrowth`); nil for a descriptor that is no pipe, or a pipe Linux
    /// refused to grow. Poller thread only.
    fileprivate var pipe: PipeSize?
    private let lock = ThreadLock()
    private var done = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Takes ownership of `fd` (closed when the reader ends) and starts reading it.
    package init(
        fd: Int32, window: ReadWindow? = nil, paced: Bool = false, onData: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) {
        self.fd = fd
        self.window = window
        self.paced = paced
        self.onData = onData
        self.onEnd = onEnd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        PipePoller.shared.submit(.add(self))
    }

    /// Stops reading now; what is still in the pipe is dropped.
    package func cancel() {
        PipePoller.shared.submit(.cancel(self))
    }

    /// Its window has room again: read what waited in the pipe meanwhile (edge-triggered epoll
    /// would not report it again).
    package func resume() {
        PipePoller.shared.submit(.resume(self))
    }

    /// Returns once the reader has ended.
    package func waitForEnd() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if done {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    fileprivate func finished() {
        lock.lock()
        done = true
        let parked = waiters
        waiters = []
        lock.unlock()
        for continuation in parked { continuation.resume() }
    }
}

/// Watches a child's pidfd (Linux 5.3 and later): when the child exits it reaps it and lets its
/// readers end once their pipes are empty, even if a grandchild holds them open.
package final class ExitWatch: @unchecked Sendable {
    fileprivate let fd: Int32
    fileprivate let readers: [PipeReader]
    package let pid: pid_t
    /// Poller thread only.
    fileprivate var ended = false
    private let lock = ThreadLock()
    private var status: ChildExit?
    private var waiter: CheckedContinuation<ChildExit, Never>?

    /// Watches `pid` through its pidfd (taken over: closed when the watch ends). Without a pidfd
    /// (a kernel before 5.3) a thread of its own waits for the child.
    package init(pid: pid_t, pidfd: Int32, readers: [PipeReader]) {
        self.pid = pid
        fd = pidfd
        self.readers = readers
        if fd >= 0 {
            PipePoller.shared.submit(.watch(self))
        } else {
            DedicatedThread.start("pi-relayd.wait") { [self] in
                reaped(ChildSpawn.reap(pid, wait: true) ?? .spawnFailed("pid \(pid) vanished"))
                PipePoller.shared.submit(.exitedWithoutPidfd(self))
            }
        }
    }

    /// Waits for the child's exit status.
    package func exit() async -> ChildExit {
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
    package static let input = EPOLLIN.rawValue
    package static let output = EPOLLOUT.rawValue
    package static let readHangUp = EPOLLRDHUP.rawValue
    package static let edgeTriggered = EPOLLET.rawValue
    package static let oneShot = EPOLLONESHOT.rawValue

    /// Adds, changes or deletes the watch of `fd`, with `fd` as the event's data.
    package static func control(_ epfd: Int32, _ op: Int32, _ fd: Int32, _ events: UInt32) -> Int32 {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        return epoll_ctl(epfd, op, fd, &event)
    }
}

/// The thread behind every `PipeReader` and `ExitWatch`, and behind every `ChildInput` with more
/// to write than its pipe took at once.
///
/// It is also a task executor: a task that prefers it (a pi session's event loop) runs here,
/// between reads. A line read from pi's stdout then becomes an event, a run update and a live
/// view on this one thread, with no thread woken per line: on Linux a wake-up through the
/// cooperative pool costs more CPU than handling the line (issue 12 k). Work that may block or
/// take long leaves with `withTaskExecutorPreference(globalConcurrentExecutor)`.
///
/// Paced readers (pi's stdout) sit in an epoll set of their own, nested in the main one as a
/// one-shot entry. When their rounds come hundreds of times a second, `PollPacing` has the
/// thread re-arm that set only after a pause, so it gathers many lines per round; meanwhile
/// everything else (plugins' replies, queued jobs, writes, exits) is still served at once.
package final class PipePoller: TaskExecutor, @unchecked Sendable {
    package static let shared = PipePoller()

    package enum Command {
        case add(PipeReader)
        case cancel(PipeReader)
        /// Its window had been full and has room again.
        case resume(PipeReader)
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
    package static let fairShare = 1 << 20
    /// A grown pipe's worth at once (untouched pages of it cost no memory).
    package static let chunkBytes = PipeGrowth.grown

    private let epfd: Int32
    /// The paced readers' epoll set, itself watched (one-shot) in `epfd`.
    private let pacedSet: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let lock = ThreadLock()
    private var commands: [Command] = []
    private var jobs: [UnownedJob] = []
    /// Tasks sleeping until a moment (`sleep(until:)`), earliest first.
    private var timers: [(at: ContinuousClock.Instant, continuation: CheckedContinuation<Void, Never>)] = []
    private var wakePending = false
    /// Set once by the poller thread before it runs anything.
    private var pollerThread: pthread_t?
    // The rest is touched only on the poller thread.
    private var entries: [Int32: Entry] = [:]
    private var backlog: [PipeReader] = []
    private var pacing = PollPacing()
    /// When the paced set, which fired and was not re-armed at once, is watched again.
    private var pacedRearmAt: ContinuousClock.Instant?
    /// The most read from one pipe in this round, for `pacing`.
    private var largestRead = 0
    /// The pipes of children that write faster than one read a wake-up take more at once.
    private var growth = PipeGrowth()
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: PipePoller.chunkBytes, alignment: 16)

    private init() {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        pacedSet = epoll_create1(Int32(EPOLL_CLOEXEC))
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fatalError("pi-relayd: cannot create the pipe poller's wake pipe: \(String(cString: strerror(errno)))") }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        guard epfd >= 0, pacedSet >= 0 else { fatalError("pi-relayd: epoll_create1 failed: \(String(cString: strerror(errno)))") }
        register(wakeRead, edge: false)
        _ = Epoll.control(epfd, EPOLL_CTL_ADD, pacedSet, Epoll.input | Epoll.oneShot)
        DedicatedThread.start("pi-relayd.pipes") { [self] in loop() }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        jobs.append(job)
        let wake = claimWake()
        lock.unlock()
        if wake { signalWake() }
    }

    /// Whether the loop must be woken for what was just queued; called with `lock` held. On the
    /// poller thread the loop sees it before it next blocks, and one wake-up pending is enough.
    private func claimWake() -> Bool {
        let onPoller = pollerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        let wake = !onPoller && !wakePending
        if wake { wakePending = true }
        return wake
    }

    /// Wakes the loop out of `epoll_wait`; called without `lock`.
    private func signalWake() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }

    /// Suspends until `deadline`, woken by this thread's own loop (its `epoll_wait` timeout).
    /// For a task that runs here anyway: a `Task.sleep` goes through libdispatch's timer thread
    /// and a pool thread before the task is back on this one. Not cancellable.
    package func sleep(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            let index = timers.firstIndex { $0.at > deadline } ?? timers.count
            timers.insert((deadline, continuation), at: index)
            let wake = claimWake()
            lock.unlock()
            if wake { signalWake() }
        }
    }

    /// The earliest timer's moment, if any.
    private var nextTimer: ContinuousClock.Instant? {
        lock.lock()
        defer { lock.unlock() }
        return timers.first?.at
    }

    /// Resumes the sleepers whose moment has come; their tasks then run in `runJobs`.
    private func fireTimers() {
        let now = ContinuousClock.now
        lock.lock()
        let due = timers.prefix { $0.at <= now }
        timers.removeFirst(due.count)
        lock.unlock()
        for timer in due { timer.continuation.resume() }
    }

    private var hasJobs: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !jobs.isEmpty
    }

    /// Runs the jobs queued so far; those they queue run on the next turn, after the pipes.
    private func runJobs() {
        lock.lock()
        let batch = jobs
        jobs = []
        lock.unlock()
        let executor = asUnownedTaskExecutor()
        for job in batch { job.runSynchronously(on: executor) }
    }

    package func submit(_ command: Command) {
        lock.lock()
        commands.append(command)
        let wake = !wakePending
        wakePending = true
        lock.unlock()
        if wake {
            var one: UInt8 = 1
            _ = write(wakeWrite, &one, 1)
        }
    }

    private func register(_ fd: Int32, edge: Bool, paced: Bool = false) {
        _ = Epoll.control(paced ? pacedSet : epfd, EPOLL_CTL_ADD, fd, Epoll.input | Epoll.readHangUp | (edge ? Epoll.edgeTriggered : 0))
    }

    private func unregister(_ fd: Int32, paced: Bool = false) {
        _ = Epoll.control(paced ? pacedSet : epfd, EPOLL_CTL_DEL, fd, 0)
        entries[fd] = nil
        close(fd)
    }

    private func rearmPaced() {
        pacedRearmAt = nil
        _ = Epoll.control(epfd, EPOLL_CTL_MOD, pacedSet, Epoll.input | Epoll.oneShot)
    }

    private func loop() {
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        lock.lock()
        pollerThread = pthread_self()
        lock.unlock()
        while true {
            let blocking = backlog.isEmpty && !hasJobs
            var timeout: Int32 = blocking ? -1 : 0
            if let rearmAt = pacedRearmAt, rearmAt <= .now { rearmPaced() }
            if blocking, let wakeAt = [pacedRearmAt, nextTimer].compactMap({ $0 }).min() {
                // Rounded up: waking a moment early would only find nothing due yet.
                timeout = Int32(max(.zero, wakeAt - .now + .microseconds(999)).inMilliseconds)
            }
            let ready = epoll_wait(epfd, events, Int32(capacity), timeout)
            if ready < 0 && errno != EINTR { return }
            runCommands()
            fireTimers()
            var pacedFired = false
            for slot in 0..<max(0, Int(ready)) {
                let fd = events[slot].data.fd
                if fd == pacedSet {
                    pacedFired = true
                    continue
                }
                handle(fd)
            }
            if pacedFired { drainPaced(events, capacity: capacity) }
            if !backlog.isEmpty {
                let again = backlog
                backlog = []
                for reader in again { drain(reader) }
            }
            runJobs()
        }
    }

    private func handle(_ fd: Int32) {
        switch entries[fd] {
        case .reader(let reader)?: drain(reader)
        case .watch(let watch)?: exited(watch)
        case .writer(let writer)?: flush(writer, fd: fd)
        case nil: break
        }
    }

    /// One round of the paced readers, then the set is re-armed at once or after `pacing`'s pause.
    private func drainPaced(_ events: UnsafeMutablePointer<epoll_event>, capacity: Int) {
        largestRead = 0
        while true {
            let ready = Int(epoll_wait(pacedSet, events, Int32(capacity), 0))
            for slot in 0..<max(0, ready) { handle(events[slot].data.fd) }
            if ready < capacity { break }
        }
        let pause = pacing.woke(at: .now, largestRead: largestRead)
        largestRead = 0
        if pause > .zero && backlog.isEmpty {
            pacedRearmAt = .now + pause
        } else {
            rearmPaced()
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
        for command in todo {
            switch command {
            case .add(let reader):
                reader.pipe = PipeCapacity.of(reader.fd).map(PipeSize.init(capacity:))
                entries[reader.fd] = .reader(reader)
                register(reader.fd, edge: true, paced: reader.paced)
                drain(reader)
            case .cancel(let reader):
                end(reader)
            case .resume(let reader):
                if !reader.ended { drain(reader) }
            case .watch(let watch):
                entries[watch.fd] = .watch(watch)
                register(watch.fd, edge: false)
            case .exitedWithoutPidfd(let watch):
                for reader in watch.readers where !reader.ended {
                    reader.childExited = true
                    drain(reader)
                }
            case .flush(let writer):
                let fd = writer.descriptor
                guard fd >= 0 else { continue }
                if case .writer(let known)? = entries[fd], known === writer {
                } else {
                    // Level-triggered: it fires while there is room, and we stop watching once
                    // everything is written.
                    entries[fd] = .writer(writer)
                    _ = Epoll.control(epfd, EPOLL_CTL_ADD, fd, Epoll.output)
                }
                flush(writer, fd: fd)
            }
        }
    }

    private func flush(_ writer: ChildInput, fd: Int32) {
        _ = writer.pollerFlush {
            _ = Epoll.control(epfd, EPOLL_CTL_DEL, fd, 0)
            entries[fd] = nil
        }
    }

    private func exited(_ watch: ExitWatch) {
        guard !watch.ended else { return }
        watch.ended = true
        unregister(watch.fd)
        // The pidfd fired: the child is a zombie now, so this does not wait.
        watch.reaped(ChildSpawn.reap(watch.pid, wait: true) ?? .spawnFailed("pid \(watch.pid) vanished"))
        for reader in watch.readers where !reader.ended {
            reader.childExited = true
            drain(reader)
        }
    }

    /// Reads until the pipe is empty (or its fair share is used up: it goes to the backlog), or
    /// until its window is full: then it waits, parked, for `resume`.
    private func drain(_ reader: PipeReader) {
        var budget = Self.fairShare
        defer { largestRead = max(largestRead, Self.fairShare - budget) }
        while !reader.ended {
            // Within the window's room (a standard pipe's worth at least), so a grown pipe
            // does not take the window further past its limit than before.
            var count = scratch.count
            if let window = reader.window {
                let room = window.room(for: reader)
                if room == 0 { return }
                count = min(count, max(PipeGrowth.standard, room))
            }
            let got = read(reader.fd, scratch.baseAddress, count)
            if got > 0 {
                if let pipe = reader.pipe {
                    reader.pipe = PipeCapacity.adjust(reader.fd, pipe: pipe, afterRead: got, growth: &growth)
                }
                reader.onData(UnsafeRawBufferPointer(rebasing: scratch[0..<got]))
                budget -= got
                if budget <= 0 {
                    backlog.append(reader)
                    return
                }
                // A short read emptied the pipe: the next write raises a new edge, so the read
                // that would only say EAGAIN is saved (half the reads while sessions stream).
                if got < count && !reader.childExited { return }
                continue
            }
            if got < 0 && errno == EINTR { continue }
            if got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !reader.childExited { return }
            // End of file, an error, or a child that is gone and has nothing left for us.
            end(reader)
        }
    }

    private func end(_ reader: PipeReader) {
        guard !reader.ended else { return }
        reader.ended = true
        if let pipe = reader.pipe { growth.closed(pipe) }
        unregister(reader.fd, paced: reader.paced)
        reader.onEnd()
        reader.finished()
    }
}

/// A pipe for a child's stdout or stderr: the child gets `write` (we close our copy once it has
/// spawned), we keep `read`. Both are close-on-exec, and `ChildSpawn` also closes every
/// descriptor above 2 in the children it starts.
package struct ChildPipe {
    package let read: Int32
    package let write: Int32

    package static func make() -> ChildPipe? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return ChildPipe(read: fds[0], write: fds[1])
    }
}

/// A line framer owned by one reader's callbacks, which run one at a time on the poller thread.
package final class FramerBox: @unchecked Sendable {
    package var framer: LineFramer
    package init(maxLineBytes: Int) { framer = LineFramer(maxLineBytes: maxLineBytes) }
}
