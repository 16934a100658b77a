/// Decides what happens after a plugin exits. A pure state machine: it is told what happened and
/// when, and returns what to do; the caller owns the clock, the processes and the sleeping.
///
/// A first crash is restarted at once, as Erlang/OTP supervisors and systemd do: a one-off crash
/// (a kill, an OOM) should cost the spawn, not a wait. Backoff starts with the second crash in a
/// row, and the crash-loop limit stops a plugin that cannot stay up.
package struct RestartPolicy: Sendable {
    package struct Options: Sendable, Equatable {
        /// Crashes in a row restarted without a wait; backoff starts after them.
        package var immediateRestarts = 1
        package var initialBackoff: Duration = .milliseconds(500)
        package var maxBackoff: Duration = .seconds(30)
        package var jitter: Double = 0.2
        package var crashLoopCount: Int = 5
        package var crashLoopWindow: Duration = .seconds(180)
        package var healthyReset: Duration = .seconds(10)
    }

    package enum Exit: Sendable, Equatable {
        /// Exit status 78: the plugin says it is not configured.
        case notConfigured
        /// Clean exit after we asked it to stop.
        case requested
        /// Anything else: a non-zero status, a signal, a hang we killed, a failed handshake.
        case crash
        /// It speaks a protocol we don't: restarting cannot help.
        case incompatible
    }

    package enum Action: Sendable, Equatable {
        case restart(after: Duration)
        case markFailed(reason: String)
        case markNotConfigured
        case stop
    }

    package let options: Options
    /// Crash times inside the window, oldest first.
    package private(set) var crashes: [ContinuousClock.Instant] = []
    package private(set) var consecutiveCrashes = 0
    private var startedAt: ContinuousClock.Instant?

    package init(options: Options = Options()) {
        self.options = options
    }

    package mutating func started(at now: ContinuousClock.Instant) {
        startedAt = now
    }

    /// `random` is in [0, 1) and picks the jitter; tests pass a fixed value.
    package mutating func exited(_ exit: Exit, at now: ContinuousClock.Instant, random: Double) -> Action {
        switch exit {
        case .notConfigured: return .markNotConfigured
        case .requested: return .stop
        case .incompatible: return .markFailed(reason: "incompatible protocol")
        case .crash: break
        }
        // Only this instance's hello counts: one that dies before saying hello did not run
        // healthily, however long ago the last one did.
        if let startedAt, now - startedAt >= options.healthyReset {
            consecutiveCrashes = 0
        }
        startedAt = nil
        crashes.append(now)
        let window = options.crashLoopWindow
        crashes.removeAll { now - $0 > window }
        consecutiveCrashes += 1
        if crashes.count >= options.crashLoopCount {
            return .markFailed(reason: "crash loop: \(crashes.count) crashes within \(window.components.seconds) s")
        }
        if consecutiveCrashes <= options.immediateRestarts { return .restart(after: .zero) }
        var backoff = options.initialBackoff * Self.power(2, consecutiveCrashes - options.immediateRestarts - 1)
        if backoff > options.maxBackoff { backoff = options.maxBackoff }
        let factor = 1 + options.jitter * (2 * random - 1)
        return .restart(after: backoff * factor)
    }

    /// Re-armed by hand (`pi-relayd plugins restart`) or because the executable changed.
    package mutating func rearm() {
        crashes.removeAll()
        consecutiveCrashes = 0
    }

    private static func power(_ base: Int, _ exp: Int) -> Int {
        var result = 1
        for _ in 0..<max(0, min(exp, 30)) { result *= base }
        return result
    }
}
