import ArgumentParser
import PiRelaySDK

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the daemon, its plugins and what is not configured.")
    @OptionGroup var output: OutputOptions

    /// The exit status when the daemon runs but a plugin has failed or was refused (README,
    /// "Status and exit codes"); 3 means the daemon is not running.
    static let pluginFailedStatus: Int32 = 2

    func run() throws {
        let home = Home.resolve()
        let s: JSONValue
        do { s = try home.client.call("status") } catch { CLIFailure.exit(error, json: output.json) }
        let plugins = s["plugins"]?.arrayValue ?? []
        output.emit(s) {
            var lines = [
                "pi-relayd \(s["version"]?.stringValue ?? "?") running, pid \(s["pid"]?.intValue ?? 0), up \(s["uptimeSeconds"]?.intValue ?? 0) s",
                "home: \(s["home"]?.stringValue ?? "")",
            ]
            lines.append(
                "plugins: "
                    + (plugins.isEmpty
                        ? "none" : plugins.map { "\($0["name"]?.stringValue ?? "?") (\($0["state"]?.stringValue ?? "?"))" }.joined(separator: ", ")))
            // Why a plugin is down, so nobody has to dig through `plugins` or the logs for it.
            for plugin in plugins {
                guard let state = plugin["state"]?.stringValue, Self.downStates.contains(state) else { continue }
                let reason = plugin["reason"]?.stringValue ?? "no reason recorded"
                lines.append("  \(plugin["name"]?.stringValue ?? "?") \(state): \(reason)")
            }
            if let sessions = s["sessions"]?.arrayValue { lines.append("sessions: \(sessions.count)") }
            for n in s["notes"]?.arrayValue ?? [] { lines.append("note: \(n.stringValue ?? "")") }
            for p in s["problems"]?.arrayValue ?? [] { lines.append("PROBLEM: \(p.stringValue ?? "")") }
            return lines.joined(separator: "\n")
        }
        if plugins.contains(where: { Self.failedStates.contains($0["state"]?.stringValue ?? "") }) {
            throw ExitCode(Self.pluginFailedStatus)
        }
    }

    /// States that end the exit status: the plugin will not come back by itself.
    static let failedStates: Set<String> = ["failed", "refused"]
    /// States whose reason `status` shows.
    static let downStates: Set<String> = ["failed", "refused", "not-configured"]
}
