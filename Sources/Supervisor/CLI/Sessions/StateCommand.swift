import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "state", abstract: "Show pi's state (model, thinking level, queue).")
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.state, SessionKey.params(session), output, plain: Self.plain)
    }

    /// One `key: value` line each; pi omits `model` when none is set.
    static func plain(_ state: JSONValue) -> String {
        let yesNo = { (value: JSONValue?) in value?.boolValue == true ? "yes" : "no" }
        var lines: [String] = []
        if let model = state["model"], let id = model["id"]?.stringValue {
            lines.append("model: " + (model["provider"]?.stringValue.map { $0 + "/" } ?? "") + id)
        } else {
            lines.append("model: none")
        }
        lines.append("thinking: \(state["thinkingLevel"]?.stringValue ?? "?")")
        lines.append("streaming: \(yesNo(state["isStreaming"])), compacting: \(yesNo(state["isCompacting"]))")
        lines.append("messages: \(state["messageCount"]?.intValue ?? 0), queued: \(state["pendingMessageCount"]?.intValue ?? 0)")
        if let name = state["sessionName"]?.stringValue { lines.append("name: \(name)") }
        if let file = state["sessionFile"]?.stringValue { lines.append("session file: \(file)") }
        return lines.joined(separator: "\n")
    }
}
