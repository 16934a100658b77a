import Testing

@testable import Supervisor

@Suite struct CronExpressionTests {
    let utc = ZoneRules.utc
    static func at(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        ZoneRulesTests.utc(year, month, day, hour, minute)
    }

    @Test func fieldsRangesStepsListsAndNames() throws {
        let cron = try CronExpression("*/15 9-17 * jan,JUL mon-fri")
        #expect(cron.minutes == [0, 15, 30, 45])
        #expect(cron.hours == Set(9...17))
        #expect(cron.months == [1, 7])
        #expect(cron.weekdays == Set(1...5))
        #expect(try CronExpression("0 0 * * 7").weekdays == [0])
        #expect(try CronExpression("5/20 * * * *").minutes == [5, 25, 45])
        #expect(try CronExpression("@weekly").text == "@weekly")
    }

    @Test func mistakesAreNamed() {
        for (text, words) in [
            ("* * * *", "five fields"), ("60 * * * *", "minute \"60\" is outside 0-59"), ("* * * * mon-sun-x", "weekday"),
            ("*/0 * * * *", "step"), ("5-1 * * * *", "backwards"), ("@sometimes", "shorthand"),
        ] {
            #expect(throws: ScheduleError.self, "\(text)") { try CronExpression(text) }
            #expect((try? CronExpression(text)) == nil)
            do { _ = try CronExpression(text) } catch { #expect(error.description.contains(words), "\(text): \(error)") }
        }
    }

    @Test func nextRuns() throws {
        let weekdays = try CronExpression("0 9 * * 1-5")
        // Thursday 26 November 2026, 10:00: Friday 09:00, then Monday 09:00.
        let friday = try #require(weekdays.next(after: Self.at(2026, 11, 26, 10), in: utc))
        #expect(friday == Self.at(2026, 11, 27, 9))
        #expect(weekdays.next(after: friday, in: utc) == Self.at(2026, 11, 30, 9))
        // Restricting both day fields runs on either (crontab(5)): the 1st, and every Sunday.
        let either = try CronExpression("0 0 1 * sun")
        #expect(either.next(after: Self.at(2026, 11, 26, 0), in: utc) == Self.at(2026, 11, 29, 0))
        #expect(either.next(after: Self.at(2026, 11, 29, 0), in: utc) == Self.at(2026, 12, 1, 0))
        #expect(try CronExpression("0 0 30 2 *").next(after: 0, in: utc) == nil)
        #expect(try CronExpression("0 0 29 2 *").next(after: Self.at(2026, 3, 1, 0), in: utc) == Self.at(2028, 2, 29, 0))
    }

    /// The daylight-saving changes of Europe/Berlin in 2026.
    @Test func daylightSavingChanges() throws {
        let berlin = try ZoneRules.named("Europe/Berlin")
        let daily = try CronExpression("0 9 * * *")
        // 09:00 in Berlin is 08:00 UTC in winter and 07:00 UTC in summer; the day of the change too.
        #expect(daily.next(after: Self.at(2026, 3, 28, 9), in: berlin) == Self.at(2026, 3, 29, 7))
        #expect(daily.next(after: Self.at(2026, 3, 27, 9), in: berlin) == Self.at(2026, 3, 28, 8))
        #expect(daily.next(after: Self.at(2026, 10, 24, 8), in: berlin) == Self.at(2026, 10, 25, 8))
        // 02:30 does not exist on 29 March: it runs at 03:30 CEST, once.
        let night = try CronExpression("30 2 * * *")
        let skipped = try #require(night.next(after: Self.at(2026, 3, 28, 12), in: berlin))
        #expect(skipped == Self.at(2026, 3, 29, 1, 30))
        #expect(night.next(after: skipped, in: berlin) == Self.at(2026, 3, 30, 0, 30))
        // 02:30 comes twice on 25 October: it runs the first time only.
        let repeated = try #require(night.next(after: Self.at(2026, 10, 24, 12), in: berlin))
        #expect(repeated == Self.at(2026, 10, 25, 0, 30))
        #expect(night.next(after: repeated, in: berlin) == Self.at(2026, 10, 26, 1, 30))
        // Made at 03:10 CEST on 29 March, after the skipped 02:30: that night's run is at 03:30.
        #expect(night.next(after: Self.at(2026, 3, 29, 1, 10), in: berlin) == Self.at(2026, 3, 29, 1, 30))
        // Made at 02:10 CET on 25 October, in the repeated hour's second pass: 02:30 comes again.
        #expect(night.next(after: Self.at(2026, 10, 25, 1, 10), in: berlin) == Self.at(2026, 10, 25, 1, 30))
        // Made at 02:40 CEST, in its first pass: the night's one 02:30 has been.
        #expect(night.next(after: Self.at(2026, 10, 25, 0, 40), in: berlin) == Self.at(2026, 10, 26, 1, 30))
    }
}
