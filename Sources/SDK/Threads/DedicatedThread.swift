import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A POSIX thread of its own for work that blocks (reads, writes, polls, fsyncs), so it never
/// holds one of the cooperative pool's few threads. Foundation's `Thread` would do the same, but
/// it is not in FoundationEssentials, and full Foundation adds its ICU data to every executable.
package enum DedicatedThread {
    /// Starts `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps).
    package static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, threadEntry, box)
        // Without a thread the process cannot do its work at all (its pipes would never be read).
        if status != 0 { fatalError("pthread_create failed for thread " + name + ": errno " + String(status)) }
        pthread_detach(thread)
    }

    /// Runs `work` on a dedicated thread and returns its result, suspending the caller meanwhile.
    package static func run<T: Sendable>(_ name: String, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start(name) { continuation.resume(returning: work()) }
        }
    }

    private static let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
        let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
        nameThisThread(body.name)
        body.run()
        return nil
    }

    /// pthread_setname_np is declared only under _GNU_SOURCE, which Swift's Glibc module does not
    /// set; the kernel takes the same name written to the thread's `comm` file. The name shows in
    /// `top -H`, gdb and crash reports.
    private static func nameThisThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
    }

    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
}
