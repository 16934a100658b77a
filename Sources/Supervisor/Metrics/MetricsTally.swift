/// The figures `pi-relayd status` shows that the daemon counts itself, beside the Prometheus
/// registry (which can only be written out whole).
package struct MetricsTally: Sendable {
    package var runs = 0
    package var promptsIn: [String: Int] = [:]
    package var answersOut: [String: Int] = [:]
    /// Formatter requests by method (`format.live`, `format.final`, `format.notice`).
    package var renders: [String: Int] = [:]
    /// By hop name (`RelayMetrics.Hop`'s, and `first_visible`).
    package var hops: [String: LatencySample] = [:]
}
