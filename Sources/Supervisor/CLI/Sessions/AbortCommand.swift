import ArgumentParser

struct AbortCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "abort", abstract: "Stop the current run.")
    @Argument(help: "Session id, name or unique prefix.") var session: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run("abort", ["session": .string(session)], output) { _ in "aborted" }
    }
}
