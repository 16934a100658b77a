import Foundation

/// Runs blocking file-system work (open, read, realpath) on a thread of its own, so it never
/// occupies one of the few threads of Swift's cooperative pool.
enum DedicatedThread {
    static func run<T: Sendable>(_ name: String, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = name
            thread.start()
        }
    }
}
