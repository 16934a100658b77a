import CoreMetrics
import Prometheus
import Synchronization

/// The daemon's figures, recorded through swift-metrics into a Prometheus registry of its own
/// (no global bootstrap, so tests can make as many daemons' worth as they like). They are always
/// kept, since counting costs next to nothing and `pi-relayd status` shows them; the HTTP endpoint
/// that offers them to Prometheus exists only when `metrics.listen` is set.
///
/// What only the daemon's actors know (sessions by state, outboxes, plugin restarts, 429s) is
/// read when the figures are looked at (`RelayMetrics+Scrape`); what happens once is counted
/// where it happens.
package final class RelayMetrics: Sendable {
    /// The hops timed: a chat message until its prompt is handed to pi, and a run's end read from
    /// pi until its final answer is handed to each messenger.
    package enum Hop: String, Sendable, CaseIterable {
        case messengerToPi = "messenger_to_pi"
        case piToMessenger = "pi_to_messenger"
    }

    package let registry = PrometheusCollectorRegistry()
    package let factory: PrometheusMetricsFactory
    private let runs: CoreMetrics.Counter
    private let tally = Mutex(MetricsTally())
    /// Plugins' running totals last seen (`RelayMetrics+Scrape`).
    package let totals = Mutex(RunningTotals())

    package init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Hops on one machine take well under a millisecond; a formatter or a slow disk can make
        // them seconds.
        factory.defaultDurationHistogramBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
            .map { Duration.milliseconds($0 * 1000) }
        self.factory = factory
        runs = CoreMetrics.Counter(label: "pi_relayd_runs_total", factory: factory)
    }

    /// An agent run started.
    package func runStarted() {
        runs.increment()
        tally.withLock { $0.runs += 1 }
    }

    /// A messenger's chat message became a prompt for pi.
    package func promptIn(messenger: String) {
        CoreMetrics.Counter(label: "pi_relayd_prompts_in_total", dimensions: [("messenger", messenger)], factory: factory).increment()
        tally.withLock { $0.promptsIn[messenger, default: 0] += 1 }
    }

    /// A final answer was handed to a messenger.
    package func answerOut(messenger: String) {
        CoreMetrics.Counter(label: "pi_relayd_answers_out_total", dimensions: [("messenger", messenger)], factory: factory).increment()
        tally.withLock { $0.answersOut[messenger, default: 0] += 1 }
    }

    /// The formatter was asked to render (`format.live`, `format.final`, `format.notice`): a
    /// run's view or answer is rendered once for all the chats that show it alike.
    package func rendered(_ method: String) {
        CoreMetrics.Counter(label: "pi_relayd_renders_total", dimensions: [("method", method)], factory: factory).increment()
        tally.withLock { $0.renders[method, default: 0] += 1 }
    }

    /// How long a hop took.
    package func hop(_ hop: Hop, _ duration: Duration) {
        CoreMetrics.Timer(label: "pi_relayd_hop_seconds", dimensions: [("hop", hop.rawValue)], factory: factory).recordNanoseconds(
            Self.nanoseconds(duration))
        tally.withLock { $0.hops[hop.rawValue, default: LatencySample()].add(duration) }
    }

    /// How long a run's first text took from pi to its messenger (its first live view handed
    /// over): what a user waits for before anything moves.
    package func firstVisible(messenger: String, _ duration: Duration) {
        CoreMetrics.Timer(label: "pi_relayd_first_visible_seconds", dimensions: [("messenger", messenger)], factory: factory)
            .recordNanoseconds(Self.nanoseconds(duration))
        tally.withLock { $0.hops["first_visible", default: LatencySample()].add(duration) }
    }

    package static func nanoseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }

    /// What the daemon counted itself, for `status`.
    package var counted: MetricsTally { tally.withLock { $0 } }
}
