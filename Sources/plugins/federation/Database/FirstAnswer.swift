import Synchronization

/// A continuation resumed by the first of several racers; the others' answers are dropped.
final class FirstAnswer<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Result<T, any Error>, Never>?>

    init(_ continuation: CheckedContinuation<Result<T, any Error>, Never>) {
        self.continuation = Mutex(continuation)
    }

    func give(_ result: Result<T, any Error>) {
        continuation.withLock { $0.take() }?.resume(returning: result)
    }
}
