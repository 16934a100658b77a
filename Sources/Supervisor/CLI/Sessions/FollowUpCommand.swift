import ArgumentParser
import Supervisor
import SupervisorIO

struct FollowUpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "follow-up", abstract: "Queue a message for when the agent would otherwise stop.")
    @OptionGroup var message: TerminalMessage
    @OptionGroup var output: OutputOptions

    func run() { message.send(.followUp, output) }
}
