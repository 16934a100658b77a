#if canImport(Glibc)
import Glibc
#endif

/// A mutex for state shared between dedicated threads and tasks, locked and unlocked in separate
/// calls where `Mutex`'s closure does not fit (waits on a continuation, early returns). It stands
/// in for Foundation's `NSLock`, which FoundationEssentials does not have.
package final class ThreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }

    package func unlock() { pthread_mutex_unlock(mutex) }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// For `ThreadCondition`, which waits on this mutex.
    var pointer: UnsafeMutablePointer<pthread_mutex_t> { mutex }
}
