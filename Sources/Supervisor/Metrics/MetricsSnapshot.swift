import FoundationEssentials
import PiRelaySDK

/// What the daemon's actors know at one moment, for the gauges and for `status`: sessions by
/// state, open questions, and each plugin's state, restarts, outbox and (for a messenger) the
/// 429s it met and its problems, from its own `status` answer.
package struct MetricsSnapshot: Sendable {
    package struct Plugin: Sendable {
        package var name: String
        package var state: String
        package var restarts: Int
        package var outboxDepth: Int
        package var outboxOldestSeconds: Double
        /// 429s the plugin counted since it started; nil when it says nothing of them.
        package var rateLimited: Int?
        /// What the plugin's answer asks its owner to fix (a state file the disk refused).
        package var problems: [String] = []
    }

    package static let sessionStates = ["starting", "resuming", "idle", "busy", "waiting-for-answer", "exited", "offline"]
    /// A plugin that does not answer `status` in time is shown without its own figures.
    package static let statusDeadline: Duration = .seconds(1)

    package var sessionsByState: [String: Int] = [:]
    package var openQuestions = 0
    package var plugins: [Plugin] = []
    /// Each session's health figures, with its id and name.
    package var health: [(id: String, name: String, health: SessionHealth)] = []

    /// Prompts waiting in the sessions' queues, and the age of the oldest, in seconds.
    package func promptQueue(now: Date = Date()) -> (depth: Int, oldestSeconds: Double) {
        let waiting = health.flatMap { $0.health.queued.map(\.at) }
        return (waiting.count, waiting.min().map { max(0, now.timeIntervalSince($0)) } ?? 0)
    }

    /// Timeouts of every session, by kind.
    package var timeouts: [String: Int] {
        health.reduce(into: [:]) { sum, entry in sum.merge(entry.health.timeouts, uniquingKeysWith: +) }
    }

    package static func read(sessions: Sessions, host: PluginHost) async -> MetricsSnapshot {
        var snapshot = MetricsSnapshot()
        for state in sessionStates { snapshot.sessionsByState[state] = 0 }
        for summary in await sessions.list() {
            snapshot.sessionsByState[summary.state, default: 0] += 1
            snapshot.openQuestions += summary.questions ?? 0
        }
        for session in await sessions.all { snapshot.health.append((session.id, await session.name, await session.health)) }
        for entry in (await host.status()).arrayValue ?? [] {
            guard let name = entry["name"]?.stringValue else { continue }
            var plugin = Plugin(
                name: name, state: entry["state"]?.stringValue ?? "?", restarts: entry["restarts"]?.intValue ?? 0,
                outboxDepth: entry["outbox"]?.intValue ?? 0, outboxOldestSeconds: entry["outboxOldestSeconds"]?.doubleValue ?? 0)
            let roles = entry["roles"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if plugin.state == "running", roles.contains("messenger"), let slot = await host.slot(name) {
                let answer = try? await slot.request(.status, NoPayload(), timeout: statusDeadline)
                plugin.rateLimited = answer?["rateLimited"]?.intValue
                plugin.problems = answer?["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            }
            snapshot.plugins.append(plugin)
        }
        return snapshot
    }
}
