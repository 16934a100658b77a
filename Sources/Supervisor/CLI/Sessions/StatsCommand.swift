import ArgumentParser

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show token and message counts.")
    @Argument(help: "Session id, name or unique prefix.") var session: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run("stats", ["session": .string(session)], output) { r in
            "".isEmpty ? r.serialized() : ""
        }
    }
}
