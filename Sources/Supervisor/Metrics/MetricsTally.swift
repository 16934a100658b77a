/// The figures `pi-relayd status` shows that the daemon counts itself, beside the Prometheus
/// registry (which can only be written out whole).
struct MetricsTally: Sendable {
    var runs = 0
    var promptsIn: [String: Int] = [:]
    var answersOut: [String: Int] = [:]
    /// Formatter requests by method (`format.live`, `format.final`, `format.notice`).
    var renders: [String: Int] = [:]
    /// By hop name (`RelayMetrics.Hop`'s, and `first_visible`).
    var hops: [String: LatencySample] = [:]
}
