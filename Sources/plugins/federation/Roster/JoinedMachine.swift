import Synchronization

/// This daemon's machine name once the roster has joined the federation under it; nil before
/// (and after the name was lost to another daemon).
final class JoinedMachine: Sendable {
    private let name = Mutex<String?>(nil)

    var current: String? { name.withLock { $0 } }

    func set(_ value: String?) { name.withLock { $0 = value } }
}
