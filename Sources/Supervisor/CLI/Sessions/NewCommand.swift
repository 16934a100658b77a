import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Start a session: a pi child in DIR (as `/new DIR [NAME]` in a chat).")
    @Argument(help: ArgumentHelp("The project directory pi works in.", valueName: "dir"), completion: .directory) var directory: String?
    @Argument(help: ArgumentHelp("A name for the session (default: the directory's name).", valueName: "name")) var sessionName: String?
    @Option(help: "The project directory, as an option.", completion: .directory) var cwd: String?
    @Option(help: "A name for the session, as an option.") var name: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let directory, let cwd, directory != cwd { throw ValidationError("two directories given (\(directory) and --cwd \(cwd)); give one") }
        if directory == nil && cwd == nil { throw ValidationError("name the project directory: pi-relayd new DIR") }
        if let sessionName, let name, sessionName != name { throw ValidationError("two names given (\(sessionName) and --name \(name)); give one") }
    }

    func run() {
        var params: JSONValue = ["cwd": .string(Home.absolute(directory ?? cwd ?? "."))]
        if let chosen = name ?? sessionName { params["name"] = .string(chosen) }
        SessionCall.run(.new, params, output, progress: "starting pi") { "started session " + SessionCall.sessionLine($0) }
    }
}
