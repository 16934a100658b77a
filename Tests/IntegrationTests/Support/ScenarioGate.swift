import Foundation

/// Limits how many daemons run at once. Swift Testing starts every test together; on a shared
/// 2-core machine dozens of daemons and Python plugins at once would miss handshake and ping
/// deadlines that say nothing about the supervisor. `PI_RELAYD_TEST_PARALLEL` overrides the limit.
actor ScenarioGate {
    static let shared = ScenarioGate(
        limit: ProcessInfo.processInfo.environment["PI_RELAYD_TEST_PARALLEL"].flatMap { Int($0) }.map { max(1, $0) } ?? 4)

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
