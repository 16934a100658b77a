import ArgumentParser
import PiRelaySDK

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "state", abstract: "Show pi's state (model, thinking level, queue).")
    @Argument(help: "Session id, name or unique prefix.") var session: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run("state", ["session": .string(session)], output, plain: Self.plain)
    }

    /// One `key: value` line each; pi omits `model` when none is set.
    static func plain(_ r: JSONValue) -> String {
        let yesNo = { (b: JSONValue?) in b?.boolValue == true ? "yes" : "no" }
        var lines: [String] = []
        if let m = r["model"], let id = m["id"]?.stringValue {
            lines.append("model: " + (m["provider"]?.stringValue.map { $0 + "/" } ?? "") + id)
        } else {
            lines.append("model: none")
        }
        lines.append("thinking: \(r["thinkingLevel"]?.stringValue ?? "?")")
        lines.append("streaming: \(yesNo(r["isStreaming"])), compacting: \(yesNo(r["isCompacting"]))")
        lines.append("messages: \(r["messageCount"]?.intValue ?? 0), queued: \(r["pendingMessageCount"]?.intValue ?? 0)")
        if let name = r["sessionName"]?.stringValue { lines.append("name: \(name)") }
        if let file = r["sessionFile"]?.stringValue { lines.append("session file: \(file)") }
        return lines.joined(separator: "\n")
    }
}
