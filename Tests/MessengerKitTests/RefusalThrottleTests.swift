import MessengerKit
import Testing

@Suite struct RefusalThrottleTests {
    @Test func aUserIsAnsweredOncePerIntervalPerChat() {
        var throttle = RefusalThrottle(interval: 600)
        let answered = [
            throttle.allows("mallory", in: "C1", now: 1000),
            throttle.allows("mallory", in: "C1", now: 1599),
            throttle.allows("mallory", in: "C2", now: 1599),
            throttle.allows("eve", in: "C1", now: 1599),
            throttle.allows("mallory", in: "C1", now: 1600),
        ]
        #expect(answered == [true, false, true, true, true])
    }

    @Test func anAnswerThePlatformNeedsIsAlwaysGivenAndStartsTheIntervalAgain() {
        var throttle = RefusalThrottle(interval: 600)
        let answered = [
            throttle.allows("mallory", in: "C1", now: 1000),
            throttle.allows("mallory", in: "C1", now: 1300, always: true),
            throttle.allows("mallory", in: "C1", now: 1650),
            throttle.allows("mallory", in: "C1", now: 1900),
        ]
        #expect(answered == [true, true, false, true])
    }
}
