import ArgumentParser
import PiRelaySDK

struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "new", abstract: "Start a session: a pi child in DIR.")
    @Option(help: "The project directory pi works in.") var cwd: String
    @Option(help: "A name for the session (default: the directory's name).") var name: String?
    @OptionGroup var output: OutputOptions

    func run() {
        var params: JSONValue = ["cwd": .string(Home.absolute(cwd))]
        if let name { params["name"] = .string(name) }
        SessionCall.run("new", params, output) { "started session " + SessionCall.sessionLine($0) }
    }
}
