import Synchronization

/// Waits for a task's value, but no longer than a limit: interactions must be answered within 3 s,
/// so a slow supervisor is raced against a timer and the interaction deferred if it loses.
final class FirstOf<T: Sendable>: Sendable {
    private let waiter = Mutex<CheckedContinuation<T?, Never>?>(nil)

    private init() {}

    /// The task's value, or nil when `limit` passed first. The task itself keeps running.
    static func value(of task: Task<T, Never>, within limit: Duration) async -> T? {
        let race = FirstOf<T>()
        return await withCheckedContinuation { continuation in
            race.waiter.withLock { $0 = continuation }
            // Unstructured on purpose: neither side may wait for the other to finish.
            Task { race.finish(await task.value) }
            Task {
                try? await Task.sleep(for: limit)
                race.finish(nil)
            }
        }
    }

    private func finish(_ value: T?) {
        waiter.withLock { continuation in
            continuation?.resume(returning: value)
            continuation = nil
        }
    }
}
