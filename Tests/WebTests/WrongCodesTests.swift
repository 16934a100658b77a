import Testing

@testable import WebPlugin

/// At most ten wrong sign-in links a minute, for the whole dashboard, on a fake clock.
@Suite struct WrongCodesTests {
    @Test func tenWrongTriesAMinuteThenNoneUntilTheOldestLeavesTheWindow() {
        var codes = WrongCodes()
        let start = ContinuousClock.now
        for second in 0..<10 {
            let now = start + .seconds(second)
            #expect(codes.allows(now: now))
            codes.failed(now: now)
        }
        #expect(!codes.allows(now: start + .seconds(30)))
        #expect(codes.retryAfter(now: start + .seconds(30)) == .seconds(30))
        #expect(!codes.allows(now: start + .milliseconds(59_999)))
        #expect(codes.allows(now: start + .seconds(60)))
        codes.failed(now: start + .seconds(60))
        #expect(!codes.allows(now: start + .seconds(60)))
        #expect(codes.allows(now: start + .seconds(61)))
    }

    @Test func triesBeingCheckedCountAsWrongUntilTheirAnswer() {
        var codes = WrongCodes()
        let now = ContinuousClock.now
        let firstTen = (0..<10).map { _ in codes.begin(now: now) }
        #expect(firstTen.allSatisfy { $0 })
        var eleventh = codes.begin(now: now)
        #expect(!eleventh, "ten side by side fill the minute before any answer")
        codes.end(wrong: false, now: now)
        eleventh = codes.begin(now: now)
        #expect(eleventh, "a right one gives its place back")
        for _ in 0..<10 { codes.end(wrong: true, now: now) }
        let early = codes.begin(now: now + .seconds(59))
        let late = codes.begin(now: now + .seconds(60))
        #expect(!early && late)
    }
}
