/// Runs `operation` and, if it is still running after `timeout`, calls `onTimeout` once.
/// `onTimeout` must make the operation end, typically by resuming the continuation it waits on
/// with a timeout error; the timer itself is cancelled as soon as `operation` returns.
///
/// The timer is an unstructured task on purpose: it must fire while `operation` is suspended on a
/// continuation that only the timer or a reply can resume.
package func withDeadline<T>(
    _ timeout: Duration,
    isolation: isolated (any Actor)? = #isolation,
    onTimeout: @escaping @Sendable () async -> Void,
    _ operation: () async throws -> T
) async rethrows -> T {
    let timer = Task {
        do { try await Task.sleep(for: timeout) } catch { return }
        await onTimeout()
    }
    defer { timer.cancel() }
    return try await operation()
}
