import Foundation
import PiRelaySDK

/// Calls one control method and prints its answer, plain or `--json`.
enum SessionCall {
    static func run(_ method: String, _ params: JSONValue, _ output: OutputOptions, plain: (JSONValue) -> String) {
        do {
            let r = try Home.resolve().client.call(method, params)
            output.emit(r) { plain(r) }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }

    static func eventLine(_ e: JSONValue) -> String {
        let time = e["time"]?.stringValue.map { String($0.dropFirst(11).prefix(12)) } ?? ""
        let type = e["type"]?.stringValue ?? "?"
        var rest = e
        for k in ["time", "type", "session"] { rest[k] = nil }
        let detail: String
        if let d = rest["delta"]?.stringValue, rest.objectValue?.count == 1 {
            detail = d.debugDescription
        } else if rest.objectValue?.isEmpty ?? true {
            detail = ""
        } else {
            detail = rest.serialized()
        }
        return "\(time) \(type)\(detail.isEmpty ? "" : " " + detail)"
    }

    static func sessionLine(_ s: JSONValue) -> String {
        var line =
            "\(s["name"]?.stringValue ?? "?")\t\(s["id"]?.stringValue ?? "?")\t\(s["state"]?.stringValue ?? "?")\t\(s["cwd"]?.stringValue ?? "")"
        if let m = s["model"]?.stringValue { line += "\t\(m)" }
        if let q = s["questions"]?.intValue, q > 0 { line += "\t\(q) question(s) waiting" }
        if let r = s["exitReason"]?.stringValue { line += "\t(\(r))" }
        return line
    }
}
