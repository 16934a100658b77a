import ArgumentParser
import Supervisor
import SupervisorIO

struct NewConversationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new-conversation", abstract: "Start a fresh pi conversation in the same session (pi's new_session).")
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.newConversation, SessionKey.params(session), output) { result in
            // An extension may veto it (pi answers `cancelled: true`).
            result["cancelled"]?.boolValue == true ? "cancelled by an extension; the conversation goes on" : "new conversation started"
        }
    }
}
