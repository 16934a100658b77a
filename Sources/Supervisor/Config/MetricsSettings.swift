/// `metrics:` — the opt-in Prometheus endpoint. Nothing listens unless `listen` is set.
package struct MetricsSettings: Sendable, Equatable {
    /// `metrics.listen`: a loopback address and port (`127.0.0.1:9464`, `[::1]:9464`,
    /// `localhost:9464`); nil when metrics are off.
    package var listen: MetricsAddress?
    /// `metrics.healthLogSeconds`: how often the daemon's log gets a one-line health summary
    /// (sessions, prompt queue, timeouts, latencies); 0 is never.
    package var healthLogSeconds = 300
}
