import Synchronization

/// The state files whose last save failed (a full disk), with why, for `status`'s problems
/// until a later save of each succeeds. For the files that have no `saveError` of their own:
/// a daemon killed while one of them is behind may act on a chat message twice (the handled
/// messages) or lose an hourglass or a chat's settings, and the owner should hear of it before.
package final class StateFailures: Sendable {
    private let failures = Mutex<[String: String]>([:])

    package init() {}

    /// The save of `file` failed with `error`; true the first time since it last succeeded (to
    /// log it once).
    @discardableResult
    package func failed(_ file: String, _ error: any Error) -> Bool {
        failures.withLock { $0.updateValue("\(error)", forKey: file) == nil }
    }

    /// `file` was saved.
    package func saved(_ file: String) {
        failures.withLock { _ = $0.removeValue(forKey: file) }
    }

    /// One line a file: "chat-messages.json not saved: …".
    package var problems: [String] {
        failures.withLock { all in all.keys.sorted().map { "\($0) not saved: \(all[$0]!)" } }
    }
}
