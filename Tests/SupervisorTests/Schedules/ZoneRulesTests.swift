import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// The TZif reader against the machine's tzdata (RFC 8536), and its footer rule on its own.
@Suite struct ZoneRulesTests {
    /// UTC seconds of a UTC wall-clock time.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        CivilTime(year: year, month: month, day: day, hour: hour, minute: minute).seconds
    }

    @Test func civilTimeRoundTripsAndKnowsTheWeekday() {
        #expect(CivilTime(seconds: 0) == CivilTime(year: 1970, month: 1, day: 1))
        #expect(CivilTime(seconds: 0).weekday == 4)
        let leap = CivilTime(year: 2028, month: 2, day: 29, hour: 23, minute: 59, second: 58)
        #expect(CivilTime(seconds: leap.seconds) == leap)
        #expect(CivilTime(year: 2026, month: 11, day: 26).weekday == 4)
        #expect(CivilTime(seconds: -1) == CivilTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59))
        #expect(CivilTime(year: 2000, month: 3, day: 1).seconds == 951_868_800)
    }

    /// Europe/Berlin: CET (+1) and CEST (+2), changing on the last Sundays of March (02:00 → 03:00)
    /// and October (03:00 → 02:00).
    @Test func berlinChangesOnTheLastSundays() throws {
        let berlin = try ZoneRules.named("Europe/Berlin")
        #expect(berlin.offset(at: Self.utc(2026, 1, 15, 12)) == 3600)
        #expect(berlin.offset(at: Self.utc(2026, 3, 29, 0, 59)) == 3600)
        #expect(berlin.offset(at: Self.utc(2026, 3, 29, 1)) == 7200)
        #expect(berlin.offset(at: Self.utc(2026, 10, 25, 0, 59)) == 7200)
        #expect(berlin.offset(at: Self.utc(2026, 10, 25, 1)) == 3600)
        // Far past the file's transitions: the footer rule (CET-1CEST,M3.5.0,M10.5.0/3) decides.
        #expect(berlin.offset(at: Self.utc(2090, 7, 1, 12)) == 7200)
        #expect(berlin.offset(at: Self.utc(2090, 3, 26, 0, 59)) == 3600)
        #expect(berlin.offset(at: Self.utc(2090, 3, 26, 1)) == 7200)
    }

    @Test func aSkippedTimeNamesTheInstantAfterTheGapAndARepeatedOneTwo() throws {
        let berlin = try ZoneRules.named("Europe/Berlin")
        // 02:30 on 29 March 2026 never shows on Berlin's clocks: it is taken as 03:30 CEST.
        #expect(berlin.instants(of: CivilTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)) == [Self.utc(2026, 3, 29, 1, 30)])
        // 02:30 on 25 October 2026 shows twice: CEST, then CET.
        #expect(
            berlin.instants(of: CivilTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30)) == [
                Self.utc(2026, 10, 25, 0, 30), Self.utc(2026, 10, 25, 1, 30),
            ])
        #expect(berlin.instant(of: CivilTime(year: 2026, month: 7, day: 1, hour: 9)) == Self.utc(2026, 7, 1, 7))
    }

    @Test func southernZonesAndZonesWithoutDaylightTime() throws {
        // Sydney: AEDT (+11) from the first Sunday of October to the first Sunday of April.
        let sydney = try ZoneRules.named("Australia/Sydney")
        #expect(sydney.offset(at: Self.utc(2026, 1, 10, 0)) == 39_600)
        #expect(sydney.offset(at: Self.utc(2026, 6, 10, 0)) == 36_000)
        #expect(sydney.offset(at: Self.utc(2091, 1, 10, 0)) == 39_600)
        #expect(sydney.offset(at: Self.utc(2091, 6, 10, 0)) == 36_000)
        let kolkata = try ZoneRules.named("Asia/Kolkata")
        #expect(kolkata.offset(at: Self.utc(2026, 6, 1, 0)) == 19_800)
        #expect(try ZoneRules.named("UTC").offset(at: 0) == 0)
    }

    @Test func theFooterRuleReadsPosixStrings() throws {
        let newYork = try #require(PosixZoneRule("EST5EDT,M3.2.0,M11.1.0"))
        #expect(newYork.standardOffset == -18_000)
        #expect(newYork.offset(at: Self.utc(2030, 3, 10, 6, 59)) == -18_000)
        #expect(newYork.offset(at: Self.utc(2030, 3, 10, 7)) == -14_400)
        #expect(newYork.offset(at: Self.utc(2030, 11, 3, 5, 59)) == -14_400)
        #expect(newYork.offset(at: Self.utc(2030, 11, 3, 6)) == -18_000)
        #expect(PosixZoneRule("<+0330>-3:30")?.standardOffset == 12_600)
        #expect(PosixZoneRule("IST-2IDT,M3.4.4/26,M10.5.0")?.daylight?.start.time == 26 * 3600)
        #expect(PosixZoneRule("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1")?.daylight?.offset == -7200)
        #expect(PosixZoneRule("X1") == nil)
        #expect(PosixZoneRule("CET-1CEST,M13.5.0,M10.5.0/3") == nil)
    }

    @Test func badNamesAndDamagedFilesAreRefusedWithTheReason() throws {
        #expect(throws: ZoneError.self) { try ZoneRules.named("../../etc/passwd") }
        #expect(throws: ZoneError.self) { try ZoneRules.named("Mars/Olympus_Mons") }
        let error = #expect(throws: ZoneError.self) { try ZoneRules(name: "Cut/Short", tzif: Array("TZif2".utf8)) }
        #expect(error?.description.contains("damaged") == true)
        let folder = FileManager.default.temporaryDirectory.path + "/zones-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder + "/Cut", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let berlin = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))
        _ = FileManager.default.createFile(atPath: folder + "/Cut/Half", contents: berlin.prefix(berlin.count / 2))
        #expect(throws: ZoneError.self) { try ZoneRules.named("Cut/Half", directory: folder) }
    }
}
