import ArgumentParser
import Supervisor
import SupervisorIO

struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sessions", abstract: "List sessions.")
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.sessions, [:], output) { result in
            let list = result.arrayValue ?? []
            return list.isEmpty ? "no sessions; start one with: pi-relayd new DIR" : list.map(SessionCall.sessionLine).joined(separator: "\n")
        }
    }
}
