import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// What `status` shows, for the control socket and for plugins (`relay.status`).
package struct DaemonStatus: Sendable {
    package let home: Home
    package let startedAt = Date()
    /// This start of the daemon, for the federation to tell it from another daemon under the same
    /// machine name: a home and a pid can be the same on two hosts (containers, pid 1).
    package let instance = String(UInt64.random(in: 1 << 60 ... .max), radix: 16)
    /// Config warnings and what is not configured, from the start.
    package let notes: [String]
    /// Plugins' notes (a missing token, nobody allowed), as their last hello's check found them.
    package let sections: PluginSections
    /// Records that could not be read at start (the daemon logged them).
    package let stateProblems: [String]
    /// State files whose last save failed.
    package let stateFailures: StateFailures
    package let daemonLog: RotatingLog
    package let host: PluginHost
    package let sessions: Sessions
    package let bindings: ChatBindings
    package let schedules: Schedules
    package let approvalLog: ApprovalLog
    package let metrics: RelayMetrics
    /// Where the Prometheus endpoint listens; nil when metrics are off.
    package let metricsAddress: MetricsAddress?
    /// The other machines, when a federation plugin reports them.
    package let machines = MachineDirectory()
    /// Configured channels whose session could not start (`ChatDesk`).
    package let unstartedChannels = UnstartedChannels()

    /// Things the owner should fix that do not stop relaying: a full disk, say.
    package func problems() async -> [String] {
        var out = stateProblems + stateFailures.problems
        if let failure = daemonLog.failure { out.append("daemon log: \(failure)") }
        if let failure = await sessions.saveError { out.append("sessions not saved: \(failure)") }
        out += await sessions.ungatedProblems()
        if let failure = await bindings.saveError { out.append("bindings not saved: \(failure)") }
        if let failure = await schedules.saveError { out.append("schedules not saved: \(failure)") }
        if let failure = await approvalLog.failure { out.append("approvals log \(approvalLog.path): \(failure)") }
        for (key, why) in unstartedChannels.all where await bindings.binding(key) == nil {
            out.append("channel \(key) from config.yaml: \(why)")
        }
        for plugin in (await host.status()).arrayValue ?? [] {
            let name = plugin["name"]?.stringValue ?? "?"
            if let failure = plugin["outboxError"]?.stringValue { out.append("plugin \(name) outbox: \(failure)") }
            if let dropped = plugin["outboxRefused"]?.stringValue { out.append("plugin \(name) outbox: \(dropped)") }
            if let poison = plugin["outboxSetAside"]?.stringValue { out.append("plugin \(name) outbox: \(poison)") }
            if let failure = plugin["logError"]?.stringValue { out.append("plugin \(name) log: \(failure)") }
        }
        // Local sessions go on without the database; the owner should still hear it is gone.
        if let report = machines.current()?.report, report.problem != nil || report.unreachableSince != nil,
            let line = machines.statusLine()
        {
            out.append(line)
        }
        return out
    }

    /// The daemon's state; `figures` adds the key figures of the metrics, which asks each running
    /// messenger for its own, and the problems their answers report (only the control socket
    /// does: a plugin asking while it is asked would wait on itself).
    package func json(figures: Bool = false) async -> JSONValue {
        let snapshot = figures ? await MetricsSnapshot.read(sessions: sessions, host: host) : nil
        let plugins = JSONValue.array(
            ((await host.status()).arrayValue ?? []).map { plugin in
                guard plugin["state"]?.stringValue == PluginState.notConfigured.rawValue, let name = plugin["name"]?.stringValue else {
                    return plugin
                }
                var marked = plugin
                marked["tokenSet"] = .bool(sections.hasSecretsSet(name))
                return marked
            })
        let list = (await sessions.list()).json
        var problems = await problems()
        for plugin in snapshot?.plugins ?? [] { problems += plugin.problems.map { "plugin \(plugin.name): \($0)" } }
        var object: JSONValue = [
            "version": .string(Version.current), "machine": .string(sessions.machine), "pid": JSONValue(Int(getpid())),
            "home": .string(home.root),
            "sessions": list,
            "uptimeSeconds": JSONValue(Int(Date().timeIntervalSince(startedAt))),
            "plugins": plugins, "notes": .array((notes + sections.notes).map { .string($0) }),
            "problems": .array(problems.map { .string(Redactor.redact($0)) }),
            "metrics": metricsAddress.map { .string("http://\($0)/metrics") } ?? .null,
        ]
        if var federation = machines.json() {
            federation["line"] = machines.statusLine().map { .string($0) } ?? .null
            object["federation"] = federation
        }
        if let snapshot { object["figures"] = keyFigures(snapshot) }
        return object
    }

    /// What `pi-relayd status` shows of the metrics.
    package func keyFigures() async -> JSONValue {
        keyFigures(await MetricsSnapshot.read(sessions: sessions, host: host))
    }

    private func keyFigures(_ snapshot: MetricsSnapshot) -> JSONValue {
        metrics.record(snapshot)
        let counted = metrics.counted
        let queue = snapshot.promptQueue()
        var hops: JSONValue = [:]
        for (name, sample) in counted.hops {
            hops[name] = [
                "count": JSONValue(sample.count),
                "p50Ms": .number(((sample.percentile(50) ?? .zero).inSeconds * 1e6).rounded() / 1000),
                "maxMs": .number(((sample.percentile(100) ?? .zero).inSeconds * 1e6).rounded() / 1000),
            ]
        }
        return [
            "runs": JSONValue(counted.runs),
            "promptsIn": .object(counted.promptsIn.mapValues { JSONValue($0) }),
            "answersOut": .object(counted.answersOut.mapValues { JSONValue($0) }),
            "renders": .object(counted.renders.mapValues { JSONValue($0) }),
            "openQuestions": JSONValue(snapshot.openQuestions),
            "sessionsByState": .object(snapshot.sessionsByState.filter { $0.value > 0 }.mapValues { JSONValue($0) }),
            "pluginRestarts": JSONValue(snapshot.plugins.reduce(0) { $0 + $1.restarts }),
            "rateLimited": JSONValue(snapshot.plugins.reduce(0) { $0 + ($1.rateLimited ?? 0) }),
            "outboxDepth": JSONValue(snapshot.plugins.reduce(0) { $0 + $1.outboxDepth }),
            "outboxOldestSeconds": .number(snapshot.plugins.map(\.outboxOldestSeconds).max() ?? 0),
            "hops": hops,
            "timeouts": .object(snapshot.timeouts.mapValues { JSONValue($0) }),
            "promptQueue": JSONValue(queue.depth),
            "promptQueueOldestSeconds": .number((queue.oldestSeconds * 10).rounded() / 10),
            "sessionLatency": HealthLine.latencies(snapshot.health),
        ]
    }
}
