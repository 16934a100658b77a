import ArgumentParser
import Supervisor
import SupervisorIO

struct SteerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steer", abstract: "Steer the running turn (delivered after the current tool calls).")
    @OptionGroup var message: TerminalMessage
    @OptionGroup var output: OutputOptions

    func run() { message.send(.steer, output) }
}
