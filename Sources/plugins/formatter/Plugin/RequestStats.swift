import PiRelaySDK
import Synchronization

/// How many requests of each method this instance answered, for `status`.
final class RequestStats: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func count(_ method: String) {
        counts.withLock { $0[method, default: 0] += 1 }
    }

    var json: JSONValue {
        counts.withLock { .object($0.mapValues { JSONValue($0) }) }
    }
}
