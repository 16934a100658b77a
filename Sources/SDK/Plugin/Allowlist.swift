import Synchronization

/// The user ids a messenger lets through: its configured ones plus the supervisor's list (the
/// welcome's `allowedUsers`, replaced by each `chat.allowlist`), which adds the users paired with
/// `pi-relayd pair` and drops revoked ones at once. Empty refuses everyone. The supervisor checks
/// every request again, so this is the messenger's early, quiet refusal, never the last word.
public final class Allowlist: Sendable {
    private let configured: Set<String>
    private let supervisor: Mutex<Set<String>>

    /// The configured ids and the supervisor's list from the welcome.
    public init(configured: Set<String>, supervisor: [String] = []) {
        self.configured = configured
        self.supervisor = Mutex(Set(supervisor))
    }

    /// Whether `user` may use the relay.
    public func permits(_ user: String) -> Bool { configured.contains(user) || supervisor.withLock { $0.contains(user) } }

    /// Takes the supervisor's new list (`chat.allowlist`).
    public func replace(with list: AllowlistParams) { supervisor.withLock { $0 = Set(list.users) } }

    /// Lets `user` in at once, after the supervisor answered their pairing claim with
    /// `paired: true` (its `chat.allowlist`, which will list them, may come a moment later).
    public func admit(_ user: String) { supervisor.withLock { _ = $0.insert(user) } }

    /// How many users are allowed.
    public var count: Int { supervisor.withLock { $0.union(configured).count } }
}
