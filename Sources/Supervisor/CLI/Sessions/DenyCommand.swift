import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct DenyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deny", abstract: "Deny a gated tool call waiting in a session.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "The approval question's id (or unique prefix, or its number in `questions`).") var id: String
    @OptionGroup var output: OutputOptions

    func run() {
        let params: JSONValue = [
            "session": .string(session), "id": .string(id), "value": .string(ApprovalChoice.deny.rawValue), "by": "pi-relayd deny",
        ]
        SessionCall.run(.answer, params, output) { _ in "denied" }
    }
}
