import ArgumentParser
import Supervisor
import SupervisorIO

struct RenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a session.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "The new name.") var name: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.rename, ["session": .string(session), "name": .string(name)], output) { "renamed: " + SessionCall.sessionLine($0) }
    }
}
