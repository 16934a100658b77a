import ArgumentParser
import PiRelaySDK

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the daemon, its plugins and what is not configured.")
    @OptionGroup var output: OutputOptions

    func run() throws {
        let home = Home.resolve()
        let s: JSONValue
        do { s = try home.client.call("status") } catch { CLIFailure.exit(error, json: output.json) }
        output.emit(s) {
            var lines = ["pi-relayd \(s["version"]?.stringValue ?? "?") running, pid \(s["pid"]?.intValue ?? 0), up \(s["uptimeSeconds"]?.intValue ?? 0) s",
                         "home: \(s["home"]?.stringValue ?? "")"]
            let plugins = s["plugins"]?.arrayValue ?? []
            lines.append("plugins: " + (plugins.isEmpty ? "none" : plugins.map { "\($0["name"]?.stringValue ?? "?") (\($0["state"]?.stringValue ?? "?"))" }.joined(separator: ", ")))
            if let sessions = s["sessions"]?.arrayValue { lines.append("sessions: \(sessions.count)") }
            for n in s["notes"]?.arrayValue ?? [] { lines.append("note: \(n.stringValue ?? "")") }
            for p in s["problems"]?.arrayValue ?? [] { lines.append("PROBLEM: \(p.stringValue ?? "")") }
            return lines.joined(separator: "\n")
        }
    }
}
