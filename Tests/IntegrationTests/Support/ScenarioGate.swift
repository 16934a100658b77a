import Foundation
import Testing

/// Limits how many daemons run at once. Swift Testing starts every test together; on a shared
/// 2-core machine dozens of daemons and Python plugins at once would miss handshake and ping
/// deadlines that say nothing about the supervisor. Six at once keep about 1.2 of the two cores
/// busy (four kept 0.9: most of a stack test is waiting on timers and fakes), and the target takes
/// under five minutes. `PI_RELAYD_TEST_PARALLEL` overrides the limit.
actor ScenarioGate {
    static let shared = ScenarioGate(
        limit: ProcessInfo.processInfo.environment["PI_RELAYD_TEST_PARALLEL"].flatMap { Int($0) }.map { max(1, $0) } ?? 6)

    /// A gated test's time limit: `minutes` of its own, plus the wait for its turn. Swift Testing
    /// starts every test at once and counts a test's time from then, so a test far back in the
    /// gate's line would otherwise run out of time before it ran (the whole target takes about
    /// five minutes on two cores).
    static func limit(minutes: Int) -> TimeLimitTrait.Duration {
        .minutes(minutes + queueMinutes)
    }

    static let queueMinutes = 10

    let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    func enter() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
