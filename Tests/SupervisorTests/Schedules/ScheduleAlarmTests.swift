import Testing

@testable import Supervisor

/// The schedules' loop sleeps on the alarm until the next schedule is due or one is added or
/// removed. A ring must end one sleep, not every sleep after it: that would spin the loop on a
/// core from the first `/schedule` until the daemon restarts.
@Suite struct ScheduleAlarmTests {
    @Test func aRingEndsTheSleepItWokeAndNoOther() async {
        let alarm = ScheduleAlarm()
        let clock = ContinuousClock()
        let sleeping = Task {
            let start = clock.now
            await alarm.sleep(for: .seconds(30))
            return clock.now - start
        }
        try? await Task.sleep(for: .milliseconds(100))
        await alarm.ring()
        #expect(await sleeping.value < .seconds(10), "the ring woke the sleep")

        // The loop's next sleeps run their course.
        for _ in 0..<3 {
            let start = clock.now
            await alarm.sleep(for: .milliseconds(300))
            #expect(clock.now - start >= .milliseconds(250), "a sleep after a ring returned at once")
        }
    }

    @Test func aRingWhileAwakeEndsTheNextSleepOnce() async {
        let alarm = ScheduleAlarm()
        let clock = ContinuousClock()
        await alarm.ring()
        let first = clock.now
        await alarm.sleep(for: .seconds(30))
        #expect(clock.now - first < .seconds(10), "a schedule added between two sleeps is not missed")
        let second = clock.now
        await alarm.sleep(for: .milliseconds(300))
        #expect(clock.now - second >= .milliseconds(250))
    }

    @Test func cancellingTheLoopEndsItsSleep() async {
        let alarm = ScheduleAlarm()
        let sleeping = Task { await alarm.sleep(for: .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(50))
        sleeping.cancel()
        await sleeping.value
    }
}
