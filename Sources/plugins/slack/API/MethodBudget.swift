import MessengerKit
import Synchronization

/// The app's call budget (`MethodPacer`) behind a lock, for the send queue: a chat's writes wait
/// in the line of the bucket they draw on (`chat.postMessage/C0123`, or `chat.update` for every
/// channel's edits) and the most urgent takes the next token. A 429 holds a method in it.
final class MethodBudget: SendAllowance {
    let pacer: Mutex<MethodPacer>

    init(_ pacer: MethodPacer) {
        self.pacer = Mutex(pacer)
    }

    func wait(chat key: String, now: Double) -> Double {
        let (method, channel) = Self.split(key)
        return pacer.withLock { $0.wait(method: method, channel: channel, now: now) }
    }

    func take(chat key: String, now: Double) {
        let (method, channel) = Self.split(key)
        pacer.withLock { _ = $0.reserve(method: method, channel: channel, now: now) }
    }

    /// A bucket's key back into its method and channel (method names have no slash).
    static func split(_ key: String) -> (method: String, channel: String?) {
        guard let slash = key.firstIndex(of: "/") else { return (key, nil) }
        return (String(key[..<slash]), String(key[key.index(after: slash)...]))
    }
}
