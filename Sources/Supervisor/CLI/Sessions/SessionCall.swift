import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

/// Calls one control method and prints its answer, plain or `--json`.
enum SessionCall {
    /// `progress` names a wait that can be long (a pi starting, a compaction): a terminal
    /// shows it on a progress line while the daemon works.
    static func run(_ method: ControlMethod, _ params: JSONValue, _ output: OutputOptions, progress: String? = nil, plain: (JSONValue) -> String) {
        let line = progress.map { ProgressLine($0) }
        do {
            let result = try Home.resolve().client.call(method, params, whileWaiting: line.map { line in { line.tick() } })
            line?.finish()
            output.emit(result) { plain(result) }
        } catch {
            line?.finish()
            CLIFailure.exit(error, json: output.json)
        }
    }

    static func eventLine(_ event: JSONValue) -> String {
        let time = event["time"]?.stringValue.map { String($0.dropFirst(11).prefix(12)) } ?? ""
        let type = event["type"]?.stringValue ?? "?"
        var rest = event
        for key in ["time", "type", "session"] { rest[key] = nil }
        let detail: String
        if let delta = rest["delta"]?.stringValue, rest.objectValue?.count == 1 {
            detail = delta.debugDescription
        } else if rest.objectValue?.isEmpty ?? true {
            detail = ""
        } else {
            detail = rest.serialized()
        }
        return "\(time) \(type)\(detail.isEmpty ? "" : " " + detail)"
    }

    static func sessionLine(_ session: JSONValue) -> String {
        var line =
            "\(session["name"]?.stringValue ?? "?")\t\(session["id"]?.stringValue ?? "?")\t\(session["state"]?.stringValue ?? "?")\t\(session["cwd"]?.stringValue ?? "")"
        if let model = session["model"]?.stringValue { line += "\t\(model)" }
        let approvals = session["approvals"]?.intValue ?? 0
        if let questions = session["questions"]?.intValue, questions > approvals { line += "\t\(questions - approvals) question(s) waiting" }
        if approvals > 0 { line += "\t\(approvals) approval(s) waiting" }
        if let reason = session["exitReason"]?.stringValue { line += "\t(\(reason))" }
        if session["kind"]?.stringValue == "terminal" { line += "\tterminal session" }
        return line
    }
}
