import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

/// `commands`: what `/name` means in a session, as its pi lists it (`get_commands`): the
/// extensions' commands, the prompt templates and the skills, each with where it comes from.
struct CommandsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commands", abstract: "List a session's slash commands: its extensions' commands, prompt templates and skills.")
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.commands, SessionKey.params(session), output) { result in
            let commands = result["commands"]?.arrayValue ?? []
            if commands.isEmpty { return "no commands" }
            return commands.map { command in
                var line = "/\(command["name"]?.stringValue ?? "?")\t\(command["source"]?.stringValue ?? "")"
                if let description = command["description"]?.stringValue, !description.isEmpty { line += "\t\(description)" }
                return line
            }.joined(separator: "\n")
        }
    }
}
