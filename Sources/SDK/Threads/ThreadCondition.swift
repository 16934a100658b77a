import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A lock with a condition variable, for a dedicated thread that sleeps until there is work (or a
/// caller that waits until the work is done). It stands in for Foundation's `NSCondition`, which
/// FoundationEssentials does not have.
package final class ThreadCondition: @unchecked Sendable {
    private let mutex = ThreadLock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    package func lock() { mutex.lock() }

    package func unlock() { mutex.unlock() }

    /// Waits for a `signal` or `broadcast`; the lock must be held, and is held again on return.
    package func wait() { pthread_cond_wait(condition, mutex.pointer) }

    /// As `wait()`, giving up at `deadline`: false if it passed without a wake-up.
    package func wait(until deadline: Date) -> Bool {
        let seconds = deadline.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        var limit = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex.pointer, &limit) != ETIMEDOUT
    }

    package func signal() { pthread_cond_signal(condition) }

    package func broadcast() { pthread_cond_broadcast(condition) }
}
