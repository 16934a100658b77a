import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct ApproveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve", abstract: "Approve a gated tool call waiting in a session (see `questions`).")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "The approval question's id, or a unique start of it, as `questions` shows it (not its number: those move).") var id: String
    @Flag(name: .customLong("for-session"), help: "Approve every call of the same rule for the rest of the conversation.") var forSession = false
    @OptionGroup var output: OutputOptions

    func run() {
        let choice = forSession ? ApprovalChoice.session : .once
        let params: JSONValue = ["session": .string(session), "id": .string(id), "value": .string(choice.rawValue), "by": "pi-relayd approve"]
        SessionCall.run(.answer, params, output) { _ in forSession ? "approved for the session" : "approved once" }
    }
}
