import CoreMetrics
import Synchronization

extension RelayMetrics {
    /// The percentiles a session's latencies are shown at, as Prometheus names them.
    package static let quantiles: [(String, Double)] = [("0.5", 50), ("0.9", 90), ("0.99", 99)]

    /// The Prometheus text exposition, with the gauges read fresh from the daemon's actors.
    package func exposition(sessions: Sessions, host: PluginHost) async -> [UInt8] {
        record(await MetricsSnapshot.read(sessions: sessions, host: host))
        return registry.emitToBuffer()
    }

    /// Sets the gauges, and turns the plugins' running totals (restarts, 429s) into counter
    /// increments: a total lower than the last one seen means the plugin started counting anew.
    package func record(_ snapshot: MetricsSnapshot) {
        for (state, count) in snapshot.sessionsByState {
            Gauge(label: "pi_relayd_sessions", dimensions: [("state", state)], factory: factory).record(count)
        }
        Gauge(label: "pi_relayd_open_questions", factory: factory).record(snapshot.openQuestions)
        let queue = snapshot.promptQueue()
        Gauge(label: "pi_relayd_prompt_queue_depth", factory: factory).record(queue.depth)
        Gauge(label: "pi_relayd_prompt_queue_oldest_seconds", factory: factory).record(queue.oldestSeconds)
        for (id, name, health) in snapshot.health {
            // Per session (by id, which a rename keeps): an ended session's timeouts stay
            // counted, a new one's count from 0.
            for (kind, total) in health.timeouts {
                let added = totals.withLock { $0.advance("timeouts/" + kind, id, to: total) }
                Counter(label: "pi_relayd_timeouts_total", dimensions: [("kind", kind)], factory: factory).increment(by: added)
            }
            for (kind, sample) in health.latency {
                for (quantile, rank) in Self.quantiles {
                    guard let value = sample.percentile(rank) else { continue }
                    Gauge(
                        label: "pi_relayd_session_latency_seconds", dimensions: [("kind", kind.rawValue), ("quantile", quantile), ("session", name)],
                        factory: factory
                    ).record(value.inSeconds)
                }
            }
        }
        for plugin in snapshot.plugins {
            let labels = [("plugin", plugin.name)]
            Gauge(label: "pi_relayd_outbox_depth", dimensions: labels, factory: factory).record(plugin.outboxDepth)
            Gauge(label: "pi_relayd_outbox_oldest_seconds", dimensions: labels, factory: factory).record(plugin.outboxOldestSeconds)
            Gauge(label: "pi_relayd_plugin_up", dimensions: labels, factory: factory).record(plugin.state == "running" ? 1 : 0)
            let restarts = totals.withLock { $0.advance("restarts", plugin.name, to: plugin.restarts) }
            Counter(label: "pi_relayd_plugin_restarts_total", dimensions: labels, factory: factory).increment(by: restarts)
            if let rateLimited = plugin.rateLimited {
                let added = totals.withLock { $0.advance("rateLimited", plugin.name, to: rateLimited) }
                Counter(label: "pi_relayd_rate_limited_total", dimensions: [("messenger", plugin.name)], factory: factory)
                    .increment(by: added)
            }
        }
    }
}
