import Synchronization

/// Channels config.yaml binds to a session (Discord's and Slack's `channels`, Telegram's
/// `chats`) whose session could not start: a folder that is not there, pi missing. Their chats
/// are told why, not "not bound", and `status` shows each as a problem until a start works or
/// the channel is bound some other way (`/use`).
package final class UnstartedChannels: Sendable {
    private let reasons = Mutex<[String: String]>([:])

    package init() {}

    /// `key`: the chat's key (`telegram:-100…`); `why` names the folder and what went wrong.
    package func failed(_ key: String, _ why: String) {
        reasons.withLock { $0[key] = why }
    }

    package func started(_ key: String) {
        _ = reasons.withLock { $0.removeValue(forKey: key) }
    }

    package func reason(_ key: String) -> String? {
        reasons.withLock { $0[key] }
    }

    /// Each channel's key and reason, by key.
    package var all: [(key: String, why: String)] {
        reasons.withLock { all in all.keys.sorted().map { ($0, all[$0] ?? "") } }
    }
}
