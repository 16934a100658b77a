import Foundation
import Testing

@testable import PiRelaySDK

/// The helpers that stand in for what the shipped code used from full Foundation behave as the
/// Foundation calls they replaced.
@Suite struct FoundationReplacementTests {
    @Test func pathsAreTakenApartAsNSStringDid() {
        #expect("/a/b".parentPath == "/a")
        #expect("/a/b/".parentPath == "/a")
        #expect("/a".parentPath == "/")
        #expect("a".parentPath == "")
        #expect("/x/chart.PNG".fileExtension == "PNG")
        #expect("report.tar.gz".fileExtension == "gz")
        #expect(".bashrc".fileExtension == "")
        #expect("/a/./b//c/../d/".standardizedPath == "/a/b/d")
        #expect("/../a".standardizedPath == "/a")
        #expect("a/../b".standardizedPath == "a/../b", "a relative path keeps its ..")
        for path in ["/a/b", "/a/b/", "/x/y.z"] {
            #expect(path.parentPath == (path as NSString).deletingLastPathComponent, "\(path)")
            #expect(path.fileExtension == (path as NSString).pathExtension, "\(path)")
        }
        for path in ["/a/b/", "/a/./b//c/../d", "/x/../../y"] {
            #expect(path.standardizedPath == (path as NSString).standardizingPath, "\(path)")
        }
    }

    @Test func trimmingMatchesFoundationsCharacterSets() {
        for text in ["  a b \t", "\n\t x \r\n", "", "   ", "\u{00A0}y\u{2003}", "z\n"] {
            #expect(text.trimmed() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
            #expect(text.trimmingInlineSpace() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
    }

    @Test func percentDecodingMatchesFoundation() {
        for text in ["us%40er", "p%3Ass%2Fw", "plain", "%E2%82%AC", "bad%zz", "cut%4", "%FF"] {
            #expect(text.percentDecoded == text.removingPercentEncoding, "\(text)")
        }
    }

    @Test func fixedPointMatchesPrintf() {
        for (value, digits) in [(0.0, 2), (1.005, 2), (12.34567, 4), (-3.5, 0), (1e9, 2)] {
            #expect(value.fixedPoint(digits) == String(format: "%.\(digits)f", value))
        }
    }

    @Test func iso8601RoundTripsWithAndWithoutFractions() throws {
        let date = Date(timeIntervalSince1970: 1_795_456_519.25)
        #expect(ISO8601.string(date) == "2026-11-23T17:55:19.250Z")
        #expect(ISO8601.date("2026-11-23T17:55:19.250Z") == date)
        #expect(ISO8601.date("2026-11-23T17:55:19Z") == Date(timeIntervalSince1970: 1_795_456_519))
        #expect(ISO8601.date("yesterday") == nil)
    }

    @Test func aConditionWaitGivesUpAtItsDeadlineAndWakesOnABroadcast() async {
        let condition = ThreadCondition()
        condition.lock()
        let started = Date()
        #expect(condition.wait(until: Date().addingTimeInterval(0.2)) == false)
        #expect(Date().timeIntervalSince(started) >= 0.19)
        condition.unlock()

        let woke = await DedicatedThread.run("condition-test") { () -> Bool in
            condition.lock()
            defer { condition.unlock() }
            DedicatedThread.start("condition-wake") {
                condition.lock()
                condition.broadcast()
                condition.unlock()
            }
            return condition.wait(until: Date().addingTimeInterval(10))
        }
        #expect(woke)
    }
}
