import Synchronization

/// The Telegram user ids allowed to use the relay: the configured ones plus the supervisor's list
/// (the welcome's `allowedUsers`, then each `chat.allowlist`), which adds the users paired with
/// `pi-relayd pair` and drops revoked ones at once. Empty refuses everyone.
final class Allowlist: Sendable {
    private let configured: Set<String>
    private let supervisor: Mutex<Set<String>>

    init(configured: Set<String>, supervisor: [String] = []) {
        self.configured = configured
        self.supervisor = Mutex(Set(supervisor))
    }

    func contains(_ user: String) -> Bool { configured.contains(user) || supervisor.withLock { $0.contains(user) } }

    func replace(supervisor users: [String]) { supervisor.withLock { $0 = Set(users) } }

    var count: Int { supervisor.withLock { $0.union(configured).count } }
}
