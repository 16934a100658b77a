import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct QuestionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "questions", abstract: "List the agent's open questions (extension dialogs).")
    @Argument(help: "Session id, name or unique prefix (default: all).", completion: .sessionNames) var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        let params: JSONValue = session.map { ["session": .string($0)] } ?? [:]
        SessionCall.run(.questions, params, output) { result in
            let list = result.arrayValue ?? []
            if list.isEmpty { return "no open questions" }
            return list.enumerated().map { index, question in
                var line =
                    "\(index + 1). [\(question["id"]?.stringValue ?? "?")] \(question["method"]?.stringValue ?? "?"): \(question["title"]?.stringValue ?? "")"
                if let message = question["message"]?.stringValue { line += " — \(message)" }
                let opts = (question["options"]?.arrayValue ?? []).compactMap(\.stringValue)
                if !opts.isEmpty { line += "\n   options: " + opts.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "  ") }
                if let seconds = question["secondsLeft"]?.intValue { line += "\n   expires in \(seconds) s" }
                return line
            }.joined(separator: "\n")
        }
    }
}
