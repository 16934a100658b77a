import FoundationEssentials
import PiRelaySDK
import Synchronization

/// The `Date` header (RFC 9110 §5.6.7, `Sun, 06 Nov 1994 08:49:37 GMT`), made when a response
/// asks in a new second. Hummingbird's `Application` keeps one fresh with a timer a second, which
/// woke an idle dashboard's threads every second for nothing.
final class HTTPDate: Sendable {
    private let made = Mutex((second: Int.min, text: ""))

    /// The header for now.
    func now() -> String { text(at: Int(Date().timeIntervalSince1970.rounded(.down))) }

    /// The header for `second`, seconds since 1970 (UTC).
    func text(at second: Int) -> String {
        made.withLock { made in
            if made.second != second { made = (second, Self.format(second)) }
            return made.text
        }
    }

    static func format(_ second: Int) -> String {
        let time = CivilTime(seconds: Int64(second))
        let weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][time.weekday]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(two(time.day)) \(months[time.month - 1]) \(time.year) \(two(time.hour)):\(two(time.minute)):\(two(time.second)) GMT"
    }
}
