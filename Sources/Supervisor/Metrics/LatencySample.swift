/// The last few hundred durations of one hop, enough for the median and the worst that
/// `pi-relayd status` shows (Prometheus gets every one, in its histogram).
package struct LatencySample: Sendable {
    package static let capacity = 256
    package private(set) var recent: [Duration] = []
    private var next = 0
    package private(set) var count = 0

    package mutating func add(_ duration: Duration) {
        count += 1
        if recent.count < Self.capacity {
            recent.append(duration)
        } else {
            recent[next] = duration
            next = (next + 1) % Self.capacity
        }
    }

    /// The nearest-rank percentile (0 to 100) of the recent durations; nil when there are none.
    package func percentile(_ rank: Double) -> Duration? {
        guard !recent.isEmpty else { return nil }
        let sorted = recent.sorted()
        let position = Int((rank / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(position, 0), sorted.count - 1)]
    }
}
