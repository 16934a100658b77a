import ArgumentParser
import Supervisor
import SupervisorIO

struct LastCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "last", abstract: "Print the agent's last answer.")
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.last, SessionKey.params(session), output) { $0["text"]?.stringValue ?? "(no answer yet)" }
    }
}
