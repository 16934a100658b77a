import ArgumentParser
import Supervisor
import SupervisorIO

struct FileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "Send a file from the session's workspace to the chats watching it (secret-looking paths are refused).")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "A path inside the session's cwd.") var path: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.file, ["session": .string(session), "path": .string(path)], output) { result in
            "sent \(result["sent"]?.stringValue ?? path) to \(result["chats"]?.intValue ?? 0) chat(s)"
        }
    }
}
