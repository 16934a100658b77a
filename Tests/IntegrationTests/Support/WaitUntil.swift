/// Polls `probe` until it returns a value, then returns it. Tests wait this way instead of
/// sleeping for fixed times: on a loaded machine things take longer, never a set amount.
/// A probe that throws is retried (the daemon may be between two states); the last error is
/// reported if time runs out. `describe` turns the last non-matching observation into text.
func waitFor<T>(
    _ what: String, timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(150),
    _ probe: () async throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    var lastError: String?
    while true {
        do {
            if let value = try await probe() { return value }
        } catch {
            lastError = "\(error)"
        }
        if ContinuousClock.now >= deadline {
            throw WaitTimeout(what: what, timeout: timeout, lastError: lastError, lastSeen: nil)
        }
        try await Task.sleep(for: interval)
    }
}

/// Polls `condition` until it is true.
func waitUntil(
    _ what: String, timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(150),
    _ condition: () async throws -> Bool
) async throws {
    _ = try await waitFor(what, timeout: timeout, every: interval) { try await condition() ? true : nil }
}
