/// A date and time on a wall clock, with no zone: what a schedule's `09:00` means before a zone
/// turns it into an instant. Seconds count from 1970-01-01 00:00 on the same clock, so a zone's
/// offset turns one into the other (`ZoneRules`). Proleptic Gregorian; the day arithmetic is
/// Howard Hinnant's `days_from_civil`, which needs no calendar library.
package struct CivilTime: Sendable, Equatable, Comparable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour = 0
    package var minute = 0
    package var second = 0

    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The wall-clock time `seconds` after 1970-01-01 00:00.
    package init(seconds: Int64) {
        let days = Self.floorDiv(seconds, 86_400)
        let rest = Int(seconds - days * 86_400)
        (year, month, day) = Self.civil(fromDays: days)
        hour = rest / 3600
        minute = rest % 3600 / 60
        second = rest % 60
    }

    /// Seconds after 1970-01-01 00:00 on the same clock.
    package var seconds: Int64 {
        Self.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// 0 is Sunday, as cron counts.
    package var weekday: Int { Self.weekday(days: Self.days(year: year, month: month, day: day)) }

    package static func < (lhs: CivilTime, rhs: CivilTime) -> Bool { lhs.seconds < rhs.seconds }

    package static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDiv(y, 400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    package static func weekday(days: Int64) -> Int { Int(((days % 7) + 11) % 7) }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    package static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
