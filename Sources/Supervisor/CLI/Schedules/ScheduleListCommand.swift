import ArgumentParser
import PiRelaySDK
import Supervisor

struct ScheduleListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the scheduled prompts.")
    @Argument(help: "Only this session's (id, name or unique prefix).", completion: .sessionNames) var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        var params: JSONValue = [:]
        if let session { params["session"] = .string(session) }
        SessionCall.run(.scheduleList, params, output) { result in
            let items = result.arrayValue ?? []
            guard !items.isEmpty else { return "no schedules" }
            return items.map { item in
                [
                    "#\(item["number"]?.intValue ?? 0)", item["sessionName"]?.stringValue ?? item["session"]?.stringValue ?? "?",
                    "\(item["label"]?.stringValue ?? "") (\(item["zone"]?.stringValue ?? ""), missed=\(item["missed"]?.stringValue ?? ""))",
                    "next \(item["nextLocal"]?.stringValue ?? "")", "runs \(item["runs"]?.intValue ?? 0)", item["prompt"]?.stringValue ?? "",
                ].joined(separator: "\t")
            }.joined(separator: "\n")
        }
    }
}
