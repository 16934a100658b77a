import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct ApprovalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approvals", abstract: "Recent approval-gate decisions (state/approvals.jsonl), oldest first.")
    @Argument(help: "Session id, name or unique prefix (default: all).", completion: .sessionNames) var session: String?
    @Option(help: "How many decisions to show.") var limit = 20
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
    }

    func run() {
        var params: JSONValue = ["limit": JSONValue(limit)]
        if let session { params["session"] = .string(session) }
        SessionCall.run(.approvals, params, output) { result in
            let list = result.arrayValue ?? []
            if list.isEmpty { return "no approval decisions yet" }
            return list.map { entry in
                let field = { (key: String) in entry[key]?.stringValue ?? "?" }
                return
                    "\(field("time")) \(field("sessionName")) \(field("tool")): \(field("args")) -> \(field("decision")) by \(field("by")) (rule \(field("rule")))"
            }.joined(separator: "\n")
        }
    }
}
