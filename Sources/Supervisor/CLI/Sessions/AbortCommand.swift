import ArgumentParser
import Supervisor
import SupervisorIO

struct AbortCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "abort", abstract: "Stop a session's current run (the daemon stops with `stop`).", aliases: ["stop-run"])
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.abort, SessionKey.params(session), output) { _ in "aborted" }
    }
}
