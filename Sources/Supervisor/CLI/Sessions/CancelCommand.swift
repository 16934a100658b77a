import ArgumentParser
import Supervisor
import SupervisorIO

struct CancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel an open question (the extension gets its default).")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "Question id (or unique prefix, or its number in `questions`).") var id: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.cancel, ["session": .string(session), "id": .string(id), "by": "terminal"], output) { _ in "cancelled" }
    }
}
