import FoundationEssentials
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
        let days = second >= 0 ? second / 86_400 : (second - 86_399) / 86_400
        let time = second - days * 86_400
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        let (year, month, day) = civil(days: days)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    private static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
