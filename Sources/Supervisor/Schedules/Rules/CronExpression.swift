import PiRelaySDK

/// A five-field cron expression (minute, hour, day of month, month, day of week), as crontab(5)
/// reads it: `*`, numbers, ranges `a-b`, steps `*/n` and `a-b/n`, lists, month and day names,
/// 7 for Sunday, and `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`. When both day fields
/// are restricted a day matching either runs (crontab(5)'s rule).
package struct CronExpression: Sendable, Equatable {
    /// The expression as written (normalised spaces), for lists and the state file.
    package let text: String
    let minutes: Set<Int>
    let hours: Set<Int>
    let days: Set<Int>
    let months: Set<Int>
    let weekdays: Set<Int>
    let daysRestricted: Bool
    let weekdaysRestricted: Bool

    package init(_ text: String) throws(ScheduleError) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let fields: [String]
        if words.count == 1, words[0].hasPrefix("@") {
            switch words[0].lowercased() {
            case "@hourly": fields = ["0", "*", "*", "*", "*"]
            case "@daily", "@midnight": fields = ["0", "0", "*", "*", "*"]
            case "@weekly": fields = ["0", "0", "*", "*", "0"]
            case "@monthly": fields = ["0", "0", "1", "*", "*"]
            case "@yearly", "@annually": fields = ["0", "0", "1", "1", "*"]
            default: throw ScheduleError("\(words[0]) is not a cron shorthand (@hourly, @daily, @weekly, @monthly, @yearly)")
            }
        } else {
            guard words.count == 5 else {
                throw ScheduleError("a cron expression has five fields (minute hour day month weekday), got \(words.count): \(text)")
            }
            fields = words
        }
        self.text = words.joined(separator: " ")
        minutes = try Self.field(fields[0], "minute", 0...59)
        hours = try Self.field(fields[1], "hour", 0...23)
        days = try Self.field(fields[2], "day of month", 1...31)
        months = try Self.field(fields[3], "month", 1...12, names: Self.monthNames, offset: 1)
        weekdays = Set(try Self.field(fields[4], "weekday", 0...7, names: Self.dayNames, offset: 0).map { $0 % 7 })
        daysRestricted = !fields[2].hasPrefix("*")
        weekdaysRestricted = !fields[4].hasPrefix("*")
    }

    static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Whether the expression runs on this day.
    func matches(year: Int, month: Int, day: Int) -> Bool {
        guard months.contains(month) else { return false }
        let onDay = days.contains(day)
        let onWeekday = weekdays.contains(CivilTime.weekday(days: CivilTime.days(year: year, month: month, day: day)))
        if daysRestricted && weekdaysRestricted { return onDay || onWeekday }
        return onDay && onWeekday
    }

    /// The first run after `utc` in `zone`, or nil when none comes within eight years (a
    /// February 30 never does). Wall-clock times the clock skips run at the instant they name
    /// (`ZoneRules.instants`); a repeated hour runs once.
    package func next(after utc: Int64, in zone: ZoneRules) -> Int64? {
        let now = zone.civil(at: utc)
        let sortedHours = hours.sorted()
        let sortedMinutes = minutes.sorted()
        let firstDay = CivilTime.days(year: now.year, month: now.month, day: now.day)
        for dayNumber in firstDay..<(firstDay + 366 * 8) {
            let (year, month, day) = CivilTime.civil(fromDays: dayNumber)
            guard matches(year: year, month: month, day: day) else { continue }
            for hour in sortedHours {
                for minute in sortedMinutes {
                    let local = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute)
                    if dayNumber == firstDay {
                        if local > now {
                            // Later on today's clock: in a repeated hour's second pass, the
                            // second time the clock shows it is the one still to come.
                            if let instant = zone.instants(of: local).first(where: { $0 > utc }) { return instant }
                            continue
                        }
                        // Earlier on today's clock: only a time the clock skipped can still come
                        // (at the instant it names, after the change).
                        guard !zone.shows(local) else { continue }
                    }
                    let instant = zone.instant(of: local)
                    if instant > utc { return instant }
                }
            }
        }
        return nil
    }

    private static func field(
        _ text: String, _ name: String, _ range: ClosedRange<Int>, names: [String] = [], offset: Int = 0
    ) throws(ScheduleError) -> Set<Int> {
        var values = Set<Int>()
        for part in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var step = 1
            if pieces.count == 2 {
                guard let given = Int(pieces[1]), given > 0 else {
                    throw ScheduleError("cron \(name) \"\(part)\": the step after / must be a whole number above 0")
                }
                step = given
            }
            let span = pieces[0]
            var low = range.lowerBound
            var high = range.upperBound
            if span != "*" {
                let ends = span.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                func value(_ word: Substring) throws(ScheduleError) -> Int {
                    if let number = Int(word), range.contains(number) { return number }
                    if let index = names.firstIndex(of: String(word)) { return index + offset }
                    throw ScheduleError("cron \(name) \"\(part)\" is outside \(range.lowerBound)-\(range.upperBound)")
                }
                low = try value(ends[0])
                high = ends.count == 2 ? try value(ends[1]) : (pieces.count == 2 ? range.upperBound : low)
                guard low <= high else { throw ScheduleError("cron \(name) \"\(part)\": the range runs backwards") }
            }
            values.formUnion(stride(from: low, through: high, by: step))
        }
        return values
    }
}
