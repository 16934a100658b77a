/// How long the pipe thread waits before it reads pi's pipes again after a round of them.
///
/// Each time the thread sleeps in `epoll_wait` and wakes for one line costs the kernel more than
/// handling the line does: with 20 sessions streaming, about 500 wake-ups a second were a third
/// of the daemon's CPU (issue 12 k). So once rounds come faster than `busyRate`, the poller
/// watches pi's pipes again only `pause` after each round and reads what arrived meanwhile in
/// one go (`PipePoller`; plugins' replies and queued work are still served at once). A quiet
/// daemon never pauses, so a lone prompt is as quick as before; the pause ends when the rate
/// falls below `quietRate` (two thresholds, so that the pause itself, which lowers the rate,
/// does not switch it off again). A round that took half a pipe's worth from one child is never
/// followed by a pause: that child writes faster than lines trickle, and a pause would block it
/// on a full pipe. Pure: fed the clock, no I/O.
package struct PollPacing {
    /// Rounds a second at which pausing starts, and the rate under which it stops (under
    /// 1 / `pause`, or the pause would end itself).
    package var busyRate = 200
    package var quietRate = 12
    package var pause: Duration = .milliseconds(50)
    /// Rates are counted over windows this long.
    package var window: Duration = .milliseconds(100)
    /// Half of Linux's default pipe capacity.
    package var bulkBytes = 32 << 10

    private var windowStart: ContinuousClock.Instant?
    private var wakes = 0
    private(set) var pausing = false

    /// The thread woke and handled a round at `now`, reading at most `largestRead` bytes from
    /// any one pipe; returns how long to pause before the next poll.
    package mutating func woke(at now: ContinuousClock.Instant, largestRead: Int = 0) -> Duration {
        guard let start = windowStart else {
            windowStart = now
            wakes = 1
            return .zero
        }
        let elapsed = now - start
        if elapsed >= window {
            // Rates per second from this window; a long quiet gap counts as a quiet window.
            let perSecond = Double(wakes) / (elapsed / .seconds(1))
            if pausing, perSecond < Double(quietRate) { pausing = false }
            if !pausing, perSecond >= Double(busyRate) { pausing = true }
            windowStart = now
            wakes = 0
        }
        wakes += 1
        return pausing && largestRead < bulkBytes ? pause : .zero
    }
}
