import PiRelaySDK

/// The rule a TZif file's footer gives for times after its last transition (RFC 8536 §3.3, a
/// POSIX `TZ` string such as `CET-1CEST,M3.5.0,M10.5.0/3`). POSIX offsets count west of
/// Greenwich; these are east (seconds added to UTC), as the rest of `ZoneRules`.
package struct PosixZoneRule: Sendable, Equatable {
    /// When daylight saving time starts or ends: a day of the year and a local time on it.
    package enum Day: Sendable, Equatable {
        /// `Jn`: day 1…365, February 29 never counted.
        case julian(Int)
        /// `n`: day 0…365, February 29 counted in leap years.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday d (0 Sunday) of week w (5 is the last) of month m.
        case month(Int, week: Int, weekday: Int)
    }

    package struct Change: Sendable, Equatable {
        package var day: Day
        /// Seconds after local midnight (RFC 8536 allows −167…167 hours).
        package var time: Int
    }

    package var standardOffset: Int
    package var daylight: (offset: Int, start: Change, end: Change)?

    package static func == (lhs: PosixZoneRule, rhs: PosixZoneRule) -> Bool {
        lhs.standardOffset == rhs.standardOffset && lhs.daylight?.offset == rhs.daylight?.offset
            && lhs.daylight?.start == rhs.daylight?.start && lhs.daylight?.end == rhs.daylight?.end
    }

    /// Nil for text that is not a POSIX TZ string this reader knows.
    package init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard scanner.name(), let standard = scanner.offset() else { return nil }
        standardOffset = -standard
        guard !scanner.atEnd else { return }
        guard scanner.name() else { return nil }
        var dst = standardOffset + 3600
        if !scanner.peek(","), let explicit = scanner.offset() { dst = -explicit }
        guard scanner.take(","), let start = scanner.change(), scanner.take(","), let end = scanner.change(), scanner.atEnd else { return nil }
        daylight = (dst, start, end)
    }

    /// The offset at `utc` seconds. Both changes are taken in the year of `utc` on the standard
    /// clock: in the north daylight time lies between them, in the south (start after end) it
    /// spans the new year, before the end and after the start.
    package func offset(at utc: Int64) -> Int {
        guard let daylight else { return standardOffset }
        let year = CivilTime(seconds: utc + Int64(standardOffset)).year
        let start = Self.instant(daylight.start, year: year) - Int64(standardOffset)
        let end = Self.instant(daylight.end, year: year) - Int64(daylight.offset)
        let inDaylight = start < end ? utc >= start && utc < end : utc >= start || utc < end
        return inDaylight ? daylight.offset : standardOffset
    }

    /// Local seconds (since 1970-01-01 on the wall clock) at which `change` happens in `year`.
    static func instant(_ change: Change, year: Int) -> Int64 {
        let jan1 = CivilTime.days(year: year, month: 1, day: 1)
        let days: Int64
        switch change.day {
        case .julian(let n):
            days = jan1 + Int64(n - 1) + (CivilTime.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            days = jan1 + Int64(n)
        case .month(let month, let week, let weekday):
            let first = CivilTime.days(year: year, month: month, day: 1)
            var day = first + Int64((weekday - CivilTime.weekday(days: first) + 7) % 7) + Int64((week - 1) * 7)
            let length = Int64(CivilTime.daysIn(month: month, year: year))
            while day >= first + length { day -= 7 }
            days = day
        }
        return days * 86_400 + Int64(change.time)
    }

    /// Reads a POSIX TZ string one part at a time.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        func peek(_ character: Character) -> Bool { !atEnd && bytes[index] == character.asciiValue }

        mutating func take(_ character: Character) -> Bool {
            guard peek(character) else { return false }
            index += 1
            return true
        }

        /// A zone abbreviation: three or more letters, or anything quoted in `<…>`.
        mutating func name() -> Bool {
            if take("<") {
                while !atEnd, bytes[index] != UInt8(ascii: ">") { index += 1 }
                return take(">")
            }
            let start = index
            while !atEnd, (bytes[index] | 0x20) >= UInt8(ascii: "a"), (bytes[index] | 0x20) <= UInt8(ascii: "z") { index += 1 }
            return index - start >= 3
        }

        mutating func number() -> Int? {
            let start = index
            var value = 0
            while !atEnd, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), index - start < 4 {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            return index > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]` in seconds.
        mutating func offset() -> Int? {
            let sign = take("-") ? -1 : (take("+") ? 1 : 1)
            guard let hours = number() else { return nil }
            var seconds = hours * 3600
            if take(":") {
                guard let minutes = number() else { return nil }
                seconds += minutes * 60
                if take(":") {
                    guard let rest = number() else { return nil }
                    seconds += rest
                }
            }
            return sign * seconds
        }

        mutating func change() -> Change? {
            let day: Day
            if take("M") {
                guard let month = number(), take("."), let week = number(), take("."), let weekday = number(),
                    (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday)
                else { return nil }
                day = .month(month, week: week, weekday: weekday)
            } else if take("J") {
                guard let n = number(), (1...365).contains(n) else { return nil }
                day = .julian(n)
            } else {
                guard let n = number(), (0...365).contains(n) else { return nil }
                day = .zeroBased(n)
            }
            var time = 7200
            if take("/") {
                guard let given = offset() else { return nil }
                time = given
            }
            return Change(day: day, time: time)
        }
    }
}
