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
}
