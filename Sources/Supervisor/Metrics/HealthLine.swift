import PiRelaySDK

/// The health figures in words, one line: what the periodic health log writes
/// (`metrics.healthLogSeconds`) and `pi-relayd status` shows, from the key figures' JSON.
package enum HealthLine {
    /// `{session: {first_text: {count, p50Ms, p90Ms, p99Ms}, final: {…}}}`, sessions without a
    /// timed run left out.
    package static func latencies(_ health: [(id: String, name: String, health: SessionHealth)]) -> JSONValue {
        var out: JSONValue = [:]
        for (_, name, figures) in health where !figures.latency.isEmpty {
            var kinds: JSONValue = [:]
            for (kind, sample) in figures.latency {
                var entry: JSONValue = ["count": JSONValue(sample.count)]
                for (label, rank) in [("p50Ms", 50.0), ("p90Ms", 90.0), ("p99Ms", 99.0)] {
                    entry[label] = .number(((sample.percentile(rank) ?? .zero).inSeconds * 1e4).rounded() / 10)
                }
                kinds[kind.rawValue] = entry
            }
            out[name] = kinds
        }
        return out
    }

    /// "api first text p50 0.8 s p99 2.1 s, final p50 5.2 s p99 9.9 s (12 runs)"
    package static func session(_ name: String, _ figures: JSONValue) -> String {
        func phrase(_ label: String, _ entry: JSONValue?) -> String? {
            guard let entry, let p50 = entry["p50Ms"]?.doubleValue, let p99 = entry["p99Ms"]?.doubleValue else { return nil }
            return "\(label) p50 \(seconds(p50)) p99 \(seconds(p99))"
        }
        let parts = [phrase("first text", figures["first_text"]), phrase("final", figures["final"])].compactMap { $0 }
        let runs = figures["final"]?["count"]?.intValue ?? figures["first_text"]?["count"]?.intValue ?? 0
        return "\(name) " + parts.joined(separator: ", ") + " (\(runs) run\(runs == 1 ? "" : "s"))"
    }

    /// The whole line, from `keyFigures`.
    package static func text(_ figures: JSONValue) -> String {
        let states = figures["sessionsByState"]?.objectValue ?? [:]
        let count = states.values.compactMap(\.intValue).reduce(0, +)
        let byState = states.keys.sorted().map { "\($0) \(states[$0]?.intValue ?? 0)" }.joined(separator: ", ")
        var parts = ["\(count) session\(count == 1 ? "" : "s")" + (byState.isEmpty ? "" : " (\(byState))")]
        parts.append(queue(figures))
        parts.append(timeouts(figures))
        parts.append("outbox \(figures["outboxDepth"]?.intValue ?? 0)")
        let latency = figures["sessionLatency"]?.objectValue ?? [:]
        parts += latency.keys.sorted().map { session($0, latency[$0] ?? [:]) }
        return "health: " + parts.joined(separator: "; ")
    }

    /// "prompt queue 2 (oldest 14 s)"
    package static func queue(_ figures: JSONValue) -> String {
        let depth = figures["promptQueue"]?.intValue ?? 0
        return "prompt queue \(depth)" + (depth > 0 ? " (oldest \(figures["promptQueueOldestSeconds"]?.doubleValue ?? 0) s)" : "")
    }

    /// "timeouts 3 (command 1, run 2)"
    package static func timeouts(_ figures: JSONValue) -> String {
        let kinds = figures["timeouts"]?.objectValue ?? [:]
        let total = kinds.values.compactMap(\.intValue).reduce(0, +)
        guard total > 0 else { return "timeouts 0" }
        return "timeouts \(total) (" + kinds.keys.sorted().map { "\($0) \(kinds[$0]?.intValue ?? 0)" }.joined(separator: ", ") + ")"
    }

    private static func seconds(_ milliseconds: Double) -> String {
        milliseconds < 1000 ? "\(Int(milliseconds.rounded())) ms" : "\((milliseconds / 100).rounded() / 10) s"
    }
}
