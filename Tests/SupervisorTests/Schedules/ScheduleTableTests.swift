import Foundation
import Testing

@testable import Supervisor

/// The pure schedule table, on made-up times.
@Suite struct ScheduleTableTests {
    static let start = Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 11, 26, 10)))
    let zones: [String: ZoneRules]

    init() throws {
        zones = ["UTC": .utc, "Europe/Berlin": try ZoneRules.named("Europe/Berlin")]
    }

    func add(_ table: inout ScheduleTable, _ words: String, now: Date = start) throws -> Schedule {
        let zones = zones
        return try table.add(try ScheduleRequest(words), sessionID: "s1", createdBy: "chat", defaultZone: "UTC", now: now) {
            (name) throws(ZoneError) in
            guard let rules = zones[name] else { throw ZoneError(name: name, reason: "is not known here") }
            return rules
        }
    }

    func due(_ table: inout ScheduleTable, _ seconds: TimeInterval) -> [ScheduleTable.Action] {
        let zones = zones
        return table.due(now: Self.start.addingTimeInterval(seconds)) { zones[$0] }
    }

    func ran(_ actions: [ScheduleTable.Action]) -> [Int] {
        actions.compactMap { if case .run(let schedule) = $0 { schedule.number } else { nil } }
    }

    @Test func anIntervalRunsOnItsBeatsAndANewScheduleTakesTheNextNumber() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 60)
        let first = try add(&table, "every 5m check")
        #expect(first.number == 1 && first.next == Self.start.addingTimeInterval(300))
        #expect(ran(due(&table, 299)).isEmpty)
        #expect(ran(due(&table, 300)) == [1])
        #expect(table.schedules[0].next == Self.start.addingTimeInterval(600) && table.schedules[0].runs == 1)
        #expect(ran(due(&table, 600)) == [1])
        let second = try add(&table, "every 10m other")
        #expect(second.number == 2)
        _ = table.remove(1)
        #expect(try add(&table, "every 10m third").number == 3, "above every number there is: #1's removal frees nothing")
    }

    @Test func theFloorRefusesAnythingFaster() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 120)
        for words in ["every 1m x", "cron * * * * * x", "cron 0,1 * * * * x"] {
            do {
                _ = try add(&table, words)
                Issue.record("\(words) was taken")
            } catch {
                #expect("\(error)".contains("schedules.minimumIntervalSeconds"), "\(error)")
            }
        }
        #expect(try add(&table, "cron */2 * * * * x").number == 1)
        #expect(try add(&table, "at 09:00 once is no interval").number == 2)
    }

    @Test func aMissedRunRunsOnceOrIsSkippedAndTheScheduleKeepsItsBeat() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 60)
        _ = try add(&table, "every 1h missed=run catch up")
        _ = try add(&table, "every 1h missed=skip leave it")
        // Down for five and a half hours: five runs missed by each.
        let actions = due(&table, 5.5 * 3600)
        #expect(ran(actions) == [1])
        #expect(actions.contains { if case .skipped(let schedule, _) = $0 { schedule.number == 2 } else { false } })
        for schedule in table.schedules {
            #expect(schedule.next == Self.start.addingTimeInterval(6 * 3600), "the next beat after now, not a pile of missed ones")
        }
        // A run a few seconds late is no missed run: it runs whatever the policy.
        #expect(ran(due(&table, 6 * 3600 + 20)) == [1, 2])
    }

    @Test func onceAtATimeRunsAtTheNextSuchTimeInItsZoneThenGoes() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 60)
        // 10:00 UTC is 11:00 in Berlin: 09:00 Berlin is tomorrow at 08:00 UTC.
        let once = try add(&table, "at 09:00 tz=Europe/Berlin morning")
        #expect(once.next == Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 11, 27, 8))))
        let later = try add(&table, "at 23:30 evening")
        #expect(later.next == Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 11, 26, 23, 30))))
        #expect(ran(due(&table, 14 * 3600)) == [2])
        #expect(table.schedules.map(\.number) == [1])
        #expect(ran(due(&table, 22 * 3600)) == [1])
        #expect(table.schedules.isEmpty)
    }

    /// `at 02:30` made at 02:10 CET on 25 October, in the repeated hour's second pass: the clock
    /// shows 02:30 again in 20 minutes (docs/SCHEDULES.md: once, the next time the clock shows it).
    @Test func onceInTheRepeatedHourRunsWhenTheClockShowsItAgain() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 60)
        let second = Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 10, 25, 1, 10)))
        let once = try add(&table, "at 02:30 tz=Europe/Berlin x", now: second)
        #expect(once.next == Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 10, 25, 1, 30))))
    }

    /// The clock set back a day (a VM snapshot restored, NTP stepping): schedules run on the
    /// clock as it now reads, rather than waiting for the old time to come round again.
    @Test func aClockSetBackMovesTheNextRunsBack() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 60)
        _ = try add(&table, "every 1h beat")
        _ = try add(&table, "every day at 09:00 report")
        #expect(due(&table, -86_400).isEmpty)
        #expect(table.schedules[0].next == Self.start.addingTimeInterval(-86_400 + 3600))
        #expect(table.schedules[1].next == Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 11, 26, 9))))
        #expect(ran(due(&table, -86_400 + 3600)) == [1])
    }

    @Test func aCronScheduleFollowsItsZoneAcrossTheChange() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 60)
        let march = Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 3, 27, 12)))
        let daily = try add(&table, "every day at 09:00 tz=Europe/Berlin report", now: march)
        #expect(daily.next == Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 3, 28, 8))))
        let zones = zones
        _ = table.due(now: daily.next) { zones[$0] }
        #expect(table.schedules[0].next == Date(timeIntervalSince1970: TimeInterval(ZoneRulesTests.utc(2026, 3, 29, 7))))
    }

    @Test func aZoneThatCannotBeReadAnyMoreKeepsItsScheduleUntilItCanBeReadAgain() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 60)
        let made = try add(&table, "every 1m tz=Europe/Berlin x")
        let actions = table.due(now: Self.start.addingTimeInterval(60)) { _ in nil }
        #expect(actions.count == 2)
        #expect(ran(actions) == [made.number])
        #expect(actions.contains { if case .waitsForZone(_, let reason) = $0 { reason.contains("Europe/Berlin") } else { false } })
        #expect(table.schedules.count == 1)
        #expect(table.schedules.first?.waitsForZone == true)
        #expect(table.schedules.first?.next == Self.start.addingTimeInterval(60 + ScheduleTable.zoneRetry))

        // Still unreadable an hour later: nothing runs, nothing is said again.
        let later = table.due(now: Self.start.addingTimeInterval(60 + ScheduleTable.zoneRetry)) { _ in nil }
        #expect(later.isEmpty)
        #expect(table.schedules.count == 1)

        // Readable again: it runs on from its next beat after now, without making up what it missed.
        let back = Self.start.addingTimeInterval(60 + 2 * ScheduleTable.zoneRetry)
        let zones = zones
        let resumed = table.due(now: back) { zones[$0] }
        #expect(resumed.count == 1)
        #expect(resumed.contains { if case .zoneBack = $0 { true } else { false } })
        #expect(table.schedules.first?.waitsForZone == nil)
        #expect(table.schedules.first?.next == back.addingTimeInterval(60))
    }

    @Test func aOneOffWhoseZoneCannotBeReadStillRunsAndGoes() throws {
        var table = ScheduleTable(saved: [], minimumInterval: 60)
        let made = try add(&table, "at 11:00 tz=Europe/Berlin x")
        let actions = table.due(now: made.next) { _ in nil }
        #expect(ran(actions) == [made.number])
        #expect(table.schedules.isEmpty)
    }
}
