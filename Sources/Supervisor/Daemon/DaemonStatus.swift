import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// What `status` shows, for the control socket and for plugins (`relay.status`).
struct DaemonStatus: Sendable {
    let home: Home
    let startedAt = Date()
    /// Config warnings and what is not configured, from the start.
    let notes: [String]
    /// Records that could not be read at start (the daemon logged them).
    let stateProblems: [String]
    let daemonLog: RotatingLog
    let host: PluginHost
    let sessions: Sessions
    let bindings: ChatBindings

    /// Things the owner should fix that do not stop relaying: a full disk, say.
    func problems() async -> [String] {
        var out = stateProblems
        if let failure = daemonLog.failure { out.append("daemon log: \(failure)") }
        if let failure = await sessions.saveError { out.append("sessions not saved: \(failure)") }
        if let failure = await bindings.saveError { out.append("bindings not saved: \(failure)") }
        for plugin in (await host.status()).arrayValue ?? [] {
            let name = plugin["name"]?.stringValue ?? "?"
            if let failure = plugin["outboxError"]?.stringValue { out.append("plugin \(name) outbox: \(failure)") }
            if let failure = plugin["logError"]?.stringValue { out.append("plugin \(name) log: \(failure)") }
        }
        return out
    }

    func json() async -> JSONValue {
        let plugins = await host.status()
        let list = (await sessions.list()).json
        return [
            "version": .string(Version.current), "pid": JSONValue(Int(getpid())), "home": .string(home.root),
            "sessions": list,
            "uptimeSeconds": JSONValue(Int(Date().timeIntervalSince(startedAt))),
            "plugins": plugins, "notes": .array(notes.map { .string($0) }),
            "problems": .array(await problems().map { .string(Redactor.redact($0)) }),
        ]
    }
}
