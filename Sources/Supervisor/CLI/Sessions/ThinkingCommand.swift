import ArgumentParser
import Supervisor
import SupervisorIO

struct ThinkingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "thinking", abstract: "Set the thinking level.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "off, minimal, low, medium, high or xhigh.") var level: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.thinking, ["session": .string(session), "level": .string(level)], output) { result in
            "thinking level set to \(result["thinkingLevel"]?.stringValue ?? level)"
        }
    }
}
