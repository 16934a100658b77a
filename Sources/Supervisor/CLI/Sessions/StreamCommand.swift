import ArgumentParser
import FoundationEssentials
import PiRelaySDK

struct StreamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stream", abstract: "Print a session's live events until Ctrl-C.")
    @Argument(help: "Session id, name or unique prefix.") var session: String
    @OptionGroup var output: OutputOptions

    func run() {
        do {
            try Home.resolve().client.stream("stream", ["session": .string(session)]) { event in
                let line = output.json ? event.serialized() : SessionCall.eventLine(event)
                StandardStreams.writeOutput(line + "\n")
                return true
            }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }
}
