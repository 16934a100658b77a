import ArgumentParser
import PiRelaySDK

struct QuestionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "questions", abstract: "List the agent's open questions (extension dialogs).")
    @Argument(help: "Session id, name or unique prefix (default: all).") var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        let p: JSONValue = session.map { ["session": .string($0)] } ?? [:]
        SessionCall.run("questions", p, output) { r in
            let list = r.arrayValue ?? []
            if list.isEmpty { return "no open questions" }
            return list.enumerated().map { i, q in
                var line = "\(i + 1). [\(q["id"]?.stringValue ?? "?")] \(q["method"]?.stringValue ?? "?"): \(q["title"]?.stringValue ?? "")"
                if let m = q["message"]?.stringValue { line += " — \(m)" }
                let opts = (q["options"]?.arrayValue ?? []).compactMap(\.stringValue)
                if !opts.isEmpty { line += "\n   options: " + opts.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "  ") }
                if let s = q["secondsLeft"]?.intValue { line += "\n   expires in \(s) s" }
                return line
            }.joined(separator: "\n")
        }
    }
}
