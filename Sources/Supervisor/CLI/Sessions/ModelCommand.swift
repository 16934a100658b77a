import ArgumentParser
import Supervisor
import SupervisorIO

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "model", abstract: "Switch the session's model.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "PROVIDER/MODEL, e.g. anthropic/claude-sonnet-4-5.") var model: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.model, ["session": .string(session), "model": .string(model)], output) { _ in "model set to \(model)" }
    }
}
