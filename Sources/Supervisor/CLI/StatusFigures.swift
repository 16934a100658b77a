import PiRelaySDK
import Supervisor
import SupervisorIO

/// The lines `pi-relayd status` shows of the daemon's key figures (`figures` in its answer).
enum StatusFigures {
    static func lines(_ figures: JSONValue?, metricsURL: String?) -> [String] {
        guard let figures else { return [] }
        func perMessenger(_ key: String) -> String {
            let counts = figures[key]?.objectValue ?? [:]
            let total = counts.values.compactMap(\.intValue).reduce(0, +)
            guard !counts.isEmpty else { return "\(total)" }
            return "\(total) (" + counts.keys.sorted().map { "\($0) \(counts[$0]?.intValue ?? 0)" }.joined(separator: ", ") + ")"
        }
        let states = figures["sessionsByState"]?.objectValue ?? [:]
        var lines = [
            "sessions by state: "
                + (states.isEmpty ? "none" : states.keys.sorted().map { "\($0) \(states[$0]?.intValue ?? 0)" }.joined(separator: ", ")),
            "runs \(figures["runs"]?.intValue ?? 0), prompts in \(perMessenger("promptsIn")), answers out \(perMessenger("answersOut")), "
                + "open questions \(figures["openQuestions"]?.intValue ?? 0)",
            "plugin restarts \(figures["pluginRestarts"]?.intValue ?? 0), 429s \(figures["rateLimited"]?.intValue ?? 0), "
                + "outbox \(figures["outboxDepth"]?.intValue ?? 0) waiting (oldest \(figures["outboxOldestSeconds"]?.doubleValue ?? 0) s)",
        ]
        let names = [("messenger_to_pi", "messenger → pi"), ("pi_to_messenger", "pi → messenger"), ("first_visible", "first text visible")]
        let hops = names.compactMap { key, label -> String? in
            guard let hop = figures["hops"]?[key], let count = hop["count"]?.intValue, count > 0 else { return nil }
            return "\(label) p50 \(hop["p50Ms"]?.doubleValue ?? 0) ms (max \(hop["maxMs"]?.doubleValue ?? 0) ms, \(count))"
        }
        if !hops.isEmpty { lines.append("latency: " + hops.joined(separator: "; ")) }
        lines.append(HealthLine.queue(figures) + ", " + HealthLine.timeouts(figures))
        let sessions = figures["sessionLatency"]?.objectValue ?? [:]
        for name in sessions.keys.sorted() { lines.append("session " + HealthLine.session(name, sessions[name] ?? [:])) }
        lines.append("metrics: " + (metricsURL ?? "off (set metrics.listen to offer them to Prometheus)"))
        return lines
    }
}
