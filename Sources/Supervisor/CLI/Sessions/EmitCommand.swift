import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

/// `emit`: a line from the terminal (a script's "deploy done") into the chats watching a
/// session, as the agent's relay_notify tool posts one; pi is not prompted.
struct EmitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emit", abstract: "Post a line into the chats watching a session, without prompting pi.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(parsing: .remaining, help: "The line; its words are joined with spaces.") var words: [String]
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if words.joined(separator: " ").trimmed().isEmpty { throw ValidationError("emit needs a line to post") }
    }

    func run() {
        var params = SessionKey.params(session)
        params["text"] = .string(words.joined(separator: " "))
        SessionCall.run(.relayNotify, params, output) { result in "posted to \(result["posted"]?.intValue ?? 0) chat(s)" }
    }
}
