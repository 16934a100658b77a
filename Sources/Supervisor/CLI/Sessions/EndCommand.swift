import ArgumentParser
import Supervisor
import SupervisorIO

struct EndCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end", abstract: "End a session: close pi's stdin, then TERM, then KILL its process group.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.end, ["session": .string(session)], output) { _ in "ended" }
    }
}
