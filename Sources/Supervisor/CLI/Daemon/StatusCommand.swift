import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the daemon, its plugins and what is not configured.")
    @OptionGroup var output: OutputOptions

    /// The exit status when the daemon runs but a plugin has failed or was refused (README,
    /// "Exit codes"); 3 means the daemon is not running.
    static let pluginFailedStatus: Int32 = 2

    func run() throws {
        let home = Home.resolve()
        let status: JSONValue
        do { status = try home.client.call(.status) } catch { CLIFailure.exit(error, json: output.json) }
        let plugins = status["plugins"]?.arrayValue ?? []
        output.emit(status) {
            var lines = [
                "pi-relayd \(status["version"]?.stringValue ?? "?") running on \(status["machine"]?.stringValue ?? "?"), pid \(status["pid"]?.intValue ?? 0), up \(status["uptimeSeconds"]?.intValue ?? 0) s",
                "home: \(status["home"]?.stringValue ?? "")",
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
            if let sessions = status["sessions"]?.arrayValue { lines.append("sessions: \(sessions.count)") }
            if let line = status["federation"]?["line"]?.stringValue { lines.append(line) }
            lines.append(contentsOf: StatusFigures.lines(status["figures"], metricsURL: status["metrics"]?.stringValue))
            for note in status["notes"]?.arrayValue ?? [] { lines.append("note: \(note.stringValue ?? "")") }
            for problem in status["problems"]?.arrayValue ?? [] { lines.append("PROBLEM: \(problem.stringValue ?? "")") }
            return lines.joined(separator: "\n")
        }
        if plugins.contains(where: Self.hasFailed) {
            throw ExitCode(Self.pluginFailedStatus)
        }
    }

    /// States that end the exit status: the plugin will not come back by itself.
    static let failedStates: Set<String> = ["failed", "refused"]

    /// A plugin that will not come back by itself; a not-configured one only when its tokens'
    /// variables are set, so a token refused (even while it ran) counts and a bundled messenger
    /// nobody uses does not.
    static func hasFailed(_ plugin: JSONValue) -> Bool {
        let state = plugin["state"]?.stringValue ?? ""
        return failedStates.contains(state) || (state == "not-configured" && plugin["tokenSet"]?.boolValue == true)
    }
    /// States whose reason `status` shows.
    static let downStates: Set<String> = ["failed", "refused", "not-configured"]
}
