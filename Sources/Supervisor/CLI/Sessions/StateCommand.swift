import ArgumentParser

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "state", abstract: "Show pi's state (model, thinking level, queue).")
    @Argument(help: "Session id, name or unique prefix.") var session: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run("state", ["session": .string(session)], output) { r in
            "".isEmpty ? r.serialized() : ""
        }
    }
}
